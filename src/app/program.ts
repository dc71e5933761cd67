import { Command, type OutputConfiguration } from 'commander';
import { VERSION } from '../version.js';
import { mayBeTerminal, stderr, stdout, writeStdout } from '../io/stdio.js';
import type { Context } from './factory.js';

export interface ProgramState {
  ctx?: Context;
  commanderError?: string;
  exitCode?: number;
}

interface ProgramDeps {
  /** The command line: only the command groups it names are declared in full. */
  argv: readonly string[];
  env: NodeJS.ProcessEnv;
  interrupt: AbortSignal;
  state: ProgramState;
}

type Handler = (ctx: Context, args: string[], opts: Record<string, unknown>) => Promise<number>;
type Commands = typeof import('../cli/commands.js');
/** The names under which commands.js exports a command's handler. */
type HandlerName = { [K in keyof Commands]: Commands[K] extends Handler ? K : never }[keyof Commands];

/**
 * Every command is declared here with its flags, but its code is imported only when it runs,
 * so `--help`, `--version` and each command load just what they need (Netlify CLI's pattern).
 */
export function buildProgram(deps: ProgramDeps): Command {
  const program = new Command('crawl');
  program
    .description('Inspect crawl jobs, export their pages and manage API keys of the crawl service.')
    .version(VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .helpCommand(false)
    .option('--json', 'machine output: the service\'s JSON body (NDJSON for streams)')
    .option('--base-url <url>', 'base URL of the service (env CRAWL_BASE_URL)')
    .option('--profile <name>', 'config profile to use (env CRAWL_PROFILE)')
    .option('--no-color', 'no colour (also NO_COLOR)')
    .option('--no-input', 'never prompt')
    .option('--timeout <seconds>', 'per-request timeout in seconds', undefined)
    .option('--verbose', 'HTTP trace on stderr (keys redacted)')
    .option('--allow-http', 'allow plain http:// to a non-loopback host')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput(lazyOutput(deps, program.configureOutput()));

  const action = (name: HandlerName) =>
    async function (this: Command, ...received: unknown[]): Promise<void> {
      const command = received[received.length - 1] as Command;
      const opts = command.optsWithGlobals();
      // Positional arguments in order; a variadic one (keys revoke) is spread.
      const args = command.processedArgs.flatMap((a: unknown) => (Array.isArray(a) ? a : a === undefined ? [] : [a])) as string[];
      const commands = await import('../cli/commands.js');
      const ctx = commands.createContext(deps.env, opts, deps.interrupt);
      deps.state.ctx = ctx;
      const handler: Handler = commands[name];
      deps.state.exitCode = await handler(ctx, args, command.opts());
    };

  const job = program.command('job').helpCommand(false).description('inspect, watch, export and cancel crawl jobs');
  const jobCommands = (): void => {
    job
      .command('status', { isDefault: true })
      .description('show a job (also `crawl job <id>`)')
      .argument('<id>', 'job id')
      .option('--exit-status', 'exit with the job status code (10 errored, 11-13 cancelled)')
      .action(action('jobStatus'));
    job
      .command('watch')
      .description('poll a job until it reaches a terminal status')
      .argument('<id>', 'job id')
      .option('--interval <seconds>', 'seconds between polls', '2')
      .option('--max-wait <seconds>', 'give up (exit 7) after this many seconds')
      .action(action('jobWatch'));
    job
      .command('pages')
      .description('every crawled page of a job, one JSON record a line')
      .argument('<id>', 'job id')
      .option('--wait', 'watch a pending or running job first, then export')
      .option('--limit <n>', 'stop after n records')
      .option('--output <file>', 'write the records to a file instead of stdout')
      .option('--interval <seconds>', 'seconds between polls with --wait', '2')
      .option('--max-wait <seconds>', 'with --wait: give up (exit 7) after this many seconds')
      .action(action('jobPages'));
    job
      .command('cancel')
      .description('cancel a job (DELETE) and show the resulting status')
      .argument('<id>', 'job id')
      .option('--wait', 'poll until the job is terminal')
      .option('--interval <seconds>', 'seconds between polls with --wait', '2')
      .option('--max-wait <seconds>', 'with --wait: give up (exit 7) after this many seconds')
      .action(action('jobCancel'));
  };

  const keys = program.command('keys').helpCommand(false).description('create, list, revoke and rotate API keys');
  const keysCommands = (): void => {
    keys
      .command('create')
      .description('create a key; the full key is printed once, on stdout')
      .argument('<name>', 'a label for the key')
      .option('--save', "store the new key as this profile's key")
      .option('--output-file <path>', 'also write the key to a new file (mode 0600); - is stdout, where it goes anyway')
      .action(action('keysCreate'));
    keys
      .command('list')
      .description('list active keys; the key in use is marked')
      .action(action('keysList'));
    keys
      .command('revoke')
      .description('revoke keys by id or unique key prefix (cannot be undone)')
      .argument('<id-or-prefix...>', 'key ids or unique prefixes of keyPrefix')
      .option('--yes', 'do not ask for confirmation')
      .option('--force', 'allow revoking the key in use (or a key that may be)')
      .action(action('keysRevoke'));
    keys
      .command('rotate')
      .description('replace the key in use without losing access')
      .option('--name <name>', 'name of the new key (default: old name and the date)')
      .option('--output-file <path>', 'where to store the new key when it does not come from the config file (- for stdout)')
      .option('--yes', 'do not ask for confirmation')
      .action(action('keysRotate'));
  };

  const auth = program.command('auth').helpCommand(false).description('store, check, print and forget the API key of a profile');
  const authCommands = (): void => {
    auth
      .command('login')
      .description('store a key after checking it with the service')
      .option('--with-key', 'read the key from standard input')
      .option('--no-verify', 'save the key without asking the service whether it accepts it')
      .action(action('authLogin'));
    auth
      .command('status')
      .description('where the key comes from and whether the service accepts it')
      .action(action('authStatus'));
    auth
      .command('token')
      .description('print the key in use (for scripts)')
      .action(action('authToken'));
    auth
      .command('logout')
      .description("forget this profile's key")
      .action(action('authLogout'));
  };

  const config = program.command('config').helpCommand(false).description('read and write the config file');
  const configCommands = (): void => {
    config
      .command('get')
      .argument('<key>', 'base-url or api-key')
      .description('print a setting of the profile (api-key masked)')
      .action(action('configGet'));
    config
      .command('set')
      .argument('<key>', 'base-url')
      .argument('<value>', 'the value')
      .description('set a setting of the profile (keys are stored with `crawl auth login`)')
      .action(action('configSet'));
    config
      .command('unset')
      .argument('<key>', 'base-url or api-key')
      .description('remove a setting from the profile')
      .action(action('configUnset'));
    config
      .command('list')
      .description("the profile's settings (api-key masked)")
      .action(action('configList'));
    config
      .command('path')
      .description('print the config file path')
      .action(action('configPath'));
  };

  // A group's subcommands are declared only when the command line names the group, or names
  // none (help, a mistyped command and its suggestion need them all): commander's start-up is
  // per command declared, and `crawl job …` then declares 4 instead of 17.
  const groups = [
    { name: 'job', declare: jobCommands },
    { name: 'keys', declare: keysCommands },
    { name: 'auth', declare: authCommands },
    { name: 'config', declare: configCommands },
  ];
  const named = groups.filter((group) => deps.argv.includes(group.name));
  for (const group of named.length > 0 ? named : groups) group.declare();

  program
    .command('sandbox')
    .description('run a local server that behaves like the service')
    .option('--port <n>', 'port on 127.0.0.1 (0 picks a free one)', '8787')
    .option('--latency <ms>', 'delay every response by this many milliseconds')
    .option('--fail-every <n>', 'answer every nth API request with 503')
    .option('--rate-limit-every <n>', 'answer every nth API request with 429 and Retry-After: 1')
    .option('--drop-every <n>', 'drop the connection of every nth API request')
    .action(action('sandbox'));

  program
    .command('help')
    .description('help on a command, or a topic: exit-codes, environment')
    .argument('[topic...]', 'exit-codes, environment, or a command')
    .action(async (topic: string[]) => {
      const { helpTopic, processIO } = await import('../cli/commands.js');
      const io = processIO(deps.env, { noColor: true, noInput: true });
      deps.state.exitCode = helpTopic(program, topic, io);
    });

  return program;
}

/**
 * commander's output, with the streams built only when they are needed (see output/stdio.ts):
 * help and the version go straight to stdout's descriptor when it is not a terminal. Width and
 * colour come out as commander's own defaults would: none, unless the environment forces colour.
 */
function lazyOutput(deps: ProgramDeps, defaults: OutputConfiguration): OutputConfiguration {
  const env = deps.env;
  const colorSet = (): boolean => Boolean(env.NO_COLOR) || env.FORCE_COLOR !== undefined || env.CLICOLOR_FORCE !== undefined;
  return {
    outputError: (text) => {
      deps.state.commanderError = text;
    },
    writeOut: writeStdout,
    writeErr: (text) => void stderr().write(text),
    // 80 is commander's own width when the stream is not a terminal.
    getOutHelpWidth: () => (mayBeTerminal(1) && stdout().isTTY ? stdout().columns : 80),
    getErrHelpWidth: () => (mayBeTerminal(2) && stderr().isTTY ? stderr().columns : 80),
    // commander's default decides from the environment first and only then asks the stream.
    getOutHasColors: () => (mayBeTerminal(1) || colorSet() ? (defaults.getOutHasColors?.() ?? false) : false),
    getErrHasColors: () => (mayBeTerminal(2) || colorSet() ? (defaults.getErrHasColors?.() ?? false) : false),
  };
}

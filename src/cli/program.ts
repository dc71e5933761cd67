import { Command } from 'commander';
import { VERSION } from '../version.js';
import type { Context } from './context.js';

export interface ProgramState {
  ctx?: Context;
  commanderError?: string;
  exitCode?: number;
}

interface ProgramDeps {
  env: NodeJS.ProcessEnv;
  interrupt: AbortSignal;
  state: ProgramState;
}

type Handler = (ctx: Context, args: string[], opts: Record<string, unknown>) => Promise<number>;

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
    .configureOutput({
      outputError: (text) => {
        deps.state.commanderError = text;
      },
    });

  const action = (load: () => Promise<Handler>) =>
    async function (this: Command, ...received: unknown[]): Promise<void> {
      const command = received[received.length - 1] as Command;
      const opts = command.optsWithGlobals();
      // Positional arguments in order; a variadic one (keys revoke) is spread.
      const args = command.processedArgs.flatMap((a: unknown) => (Array.isArray(a) ? a : a === undefined ? [] : [a])) as string[];
      const { createContext } = await import('./commands.js');
      const ctx = createContext(deps.env, opts, deps.interrupt);
      deps.state.ctx = ctx;
      const handler = await load();
      deps.state.exitCode = await handler(ctx, args, command.opts());
    };

  const job = program.command('job').helpCommand(false).description('inspect, watch, export and cancel crawl jobs');
  job
    .command('status', { isDefault: true })
    .description('show a job (also `crawl job <id>`)')
    .argument('<id>', 'job id')
    .option('--exit-status', 'exit with the job status code (10 errored, 11-13 cancelled)')
    .action(action(async () => (await import('./commands.js')).jobStatus));
  job
    .command('watch')
    .description('poll a job until it reaches a terminal status')
    .argument('<id>', 'job id')
    .option('--interval <seconds>', 'seconds between polls', '2')
    .option('--max-wait <seconds>', 'give up (exit 7) after this many seconds')
    .action(action(async () => (await import('./commands.js')).jobWatch));
  job
    .command('pages')
    .description('every crawled page of a job, one JSON record a line')
    .argument('<id>', 'job id')
    .option('--wait', 'watch a pending or running job first, then export')
    .option('--limit <n>', 'stop after n records')
    .option('--output <file>', 'write the records to a file instead of stdout')
    .option('--interval <seconds>', 'seconds between polls with --wait', '2')
    .option('--max-wait <seconds>', 'with --wait: give up (exit 7) after this many seconds')
    .action(action(async () => (await import('./commands.js')).jobPages));
  job
    .command('cancel')
    .description('cancel a job (DELETE) and show the resulting status')
    .argument('<id>', 'job id')
    .option('--wait', 'poll until the job is terminal')
    .option('--interval <seconds>', 'seconds between polls with --wait', '2')
    .option('--max-wait <seconds>', 'with --wait: give up (exit 7) after this many seconds')
    .action(action(async () => (await import('./commands.js')).jobCancel));

  const keys = program.command('keys').helpCommand(false).description('create, list, revoke and rotate API keys');
  keys
    .command('create')
    .description('create a key; the full key is printed once, on stdout')
    .argument('<name>', 'a label for the key')
    .option('--save', "store the new key as this profile's key")
    .option('--output-file <path>', 'also write the key to a new file (mode 0600)')
    .action(action(async () => (await import('./commands.js')).keysCreate));
  keys
    .command('list')
    .description('list active keys; the key in use is marked')
    .action(action(async () => (await import('./commands.js')).keysList));
  keys
    .command('revoke')
    .description('revoke keys by id or unique key prefix (cannot be undone)')
    .argument('<id-or-prefix...>', 'key ids or unique prefixes of keyPrefix')
    .option('--yes', 'do not ask for confirmation')
    .option('--force', 'allow revoking the key in use')
    .action(action(async () => (await import('./commands.js')).keysRevoke));
  keys
    .command('rotate')
    .description('replace the key in use without losing access')
    .option('--name <name>', 'name of the new key (default: old name and the date)')
    .option('--output-file <path>', 'where to store the new key when it does not come from the config file')
    .option('--yes', 'do not ask for confirmation')
    .action(action(async () => (await import('./commands.js')).keysRotate));

  const auth = program.command('auth').helpCommand(false).description('store, check, print and forget the API key of a profile');
  auth
    .command('login')
    .description('store a key after checking it with the service')
    .option('--with-key', 'read the key from standard input')
    .action(action(async () => (await import('./commands.js')).authLogin));
  auth
    .command('status')
    .description('where the key comes from and whether the service accepts it')
    .action(action(async () => (await import('./commands.js')).authStatus));
  auth
    .command('token')
    .description('print the key in use (for scripts)')
    .action(action(async () => (await import('./commands.js')).authToken));
  auth
    .command('logout')
    .description("forget this profile's key")
    .action(action(async () => (await import('./commands.js')).authLogout));

  const config = program.command('config').helpCommand(false).description('read and write the config file');
  config
    .command('get')
    .argument('<key>', 'base-url or api-key')
    .description('print a setting of the profile (api-key masked)')
    .action(action(async () => (await import('./commands.js')).configGet));
  config
    .command('set')
    .argument('<key>', 'base-url')
    .argument('<value>', 'the value')
    .description('set a setting of the profile (keys are stored with `crawl auth login`)')
    .action(action(async () => (await import('./commands.js')).configSet));
  config
    .command('unset')
    .argument('<key>', 'base-url or api-key')
    .description('remove a setting from the profile')
    .action(action(async () => (await import('./commands.js')).configUnset));
  config
    .command('list')
    .description("the profile's settings (api-key masked)")
    .action(action(async () => (await import('./commands.js')).configList));
  config
    .command('path')
    .description('print the config file path')
    .action(action(async () => (await import('./commands.js')).configPath));

  program
    .command('sandbox')
    .description('run a local server that behaves like the service')
    .option('--port <n>', 'port on 127.0.0.1 (0 picks a free one)', '8787')
    .option('--latency <ms>', 'delay every response by this many milliseconds')
    .option('--fail-every <n>', 'answer every nth API request with 503')
    .option('--rate-limit-every <n>', 'answer every nth API request with 429 and Retry-After: 1')
    .option('--drop-every <n>', 'drop the connection of every nth API request')
    .action(action(async () => (await import('./commands.js')).sandbox));

  program
    .command('help')
    .description('help on a command, or a topic: exit-codes, environment')
    .argument('[topic...]', 'exit-codes, environment, or a command')
    .action(async (topic: string[]) => {
      const { helpTopic, processIO } = await import('./commands.js');
      const io = processIO(deps.env, { noColor: true, noInput: true });
      deps.state.exitCode = helpTopic(program, topic, io);
    });

  return program;
}

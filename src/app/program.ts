import { Command, CommanderError, Help, Option, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { COMMAND_TABLE, groups, helpTopic, rootCommands, type CommandFacts, type Exec, type Registration } from '../commands/index.js';
import { withExamples, withNotes } from '../commands/shared/examples.js';
import { timeoutOption } from '../commands/shared/flags.js';
import type { Env, GlobalOptions } from '../deps.js';
import { colorEnabled, type RawStreams } from '../io/io.js';
import { VERSION } from '../version.js';

/** The root command and its global flags, typed: `globalsOf` reads them. */
function rootCommand() {
  return new Command('crawl')
    .description('Inspect crawl jobs, export their pages and manage API keys of the crawl service.')
    .version(VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .helpCommand(false)
    .addOption(new Option('--json', "machine output: the service's JSON body (NDJSON for streams)"))
    .addOption(new Option('-q, --jq <filter>', 'filter the JSON output with jq (implies --json; strings printed raw)'))
    .addOption(new Option('--base-url <url>', 'base URL of the service (env CRAWL_BASE_URL)'))
    .addOption(new Option('--profile <name>', 'config profile to use (env CRAWL_PROFILE)'))
    .addOption(new Option('--no-color', 'no colour (also NO_COLOR)'))
    .addOption(new Option('--no-input', 'never prompt'))
    .addOption(timeoutOption())
    .addOption(new Option('--verbose', 'HTTP trace on stderr (keys redacted)'))
    .addOption(new Option('--allow-http', 'allow plain http:// to a non-loopback host'));
}

export type Program = ReturnType<typeof rootCommand>;

/**
 * `error` when commander threw it (help shown, a usage error): runCli asks here, so that a run
 * that builds no program loads no commander.
 */
export function asCommanderError(error: unknown): CommanderError | undefined {
  return error instanceof CommanderError ? error : undefined;
}

/** The global flags as parsed so far (all of them once a command runs). */
export function globalsOf(program: Program): GlobalOptions {
  const opts = program.opts();
  return {
    json: opts.json === true || opts.jq !== undefined,
    jq: opts.jq,
    verbose: opts.verbose === true,
    noInput: opts.input === false,
    noColor: opts.color === false,
    timeoutMs: opts.timeout,
    allowHttp: opts.allowHttp === true,
    baseUrl: opts.baseUrl,
    profile: opts.profile,
  };
}

export interface ProgramHooks {
  /** The command line (after `crawl`): what a usage error's hint reads to name the command meant. */
  argv?: readonly string[];
  streams: RawStreams;
  env: Env;
  /** Runs a command: builds its Deps from the global flags, runs it, records its exit code. */
  exec: (program: Program) => Exec;
  /** commander's own error (unknown command, missing argument) in our words, reported by runCli. */
  onCommanderError: (error: { message: string; hint: string | undefined }) => void;
  /** The exit code of a command that runs without Deps (`crawl help <topic>`). */
  setExitCode: (code: number) => void;
}

/**
 * The program: the root's global flags, its groups and every command, each declared by its own
 * module. With `argv`, only the commands that command line names are built (their modules loaded,
 * their flags and actions declared); the others are listed from the command table, as help and
 * commander's suggestions need them, and cost nothing more. Without, every command is built.
 */
export async function buildProgram(hooks: ProgramHooks, argv?: readonly string[]): Promise<Program> {
  const program = rootCommand();
  // The command the words so far lead to: where an unknown subcommand's suggestion belongs.
  let reached: CommandUnknownOpts = program as CommandUnknownOpts;
  const streams = hooks.streams;
  const helpWidth = (): number => (isTerminal(streams, 1) ? streams.columns : 80);
  program
    .showSuggestionAfterError(true)
    // commander leaves descriptions unwrapped when fewer than 40 columns are left for them, so
    // on a 50-column terminal every line ran past the edge.
    .configureHelp({ minWidthToWrap: 16, showGlobalOptions: true, visibleCommands: declaredCommands, subcommandTerm: listedTerm })
    .exitOverride()
    .configureOutput(output(hooks, (text) => hooks.onCommanderError(commanderError(text, reached, hooks.argv ?? []))))
    .hook('preSubcommand', (_root, sub) => {
      reached = sub as CommandUnknownOpts;
    });
  const exec = hooks.exec(program);
  const named = argv === undefined ? () => true : namedBy(argv, program as CommandUnknownOpts);
  const words = new Set(argv);
  const groupCommands = groups.map((group) => {
    const command = program.command(group.name).helpCommand(false).description(group.description);
    // `crawl job` alone would run its default command with no id: it shows the group's help instead.
    command.hook('preSubcommand', (self, sub) => {
      if (self.args.length === 0) self.help();
      // `crawl job help -h` asks for the group's help, as `crawl job help` does.
      if (sub.name() === 'help' && self.args.slice(1).some((word) => word === '-h' || word === '--help')) self.help();
      reached = sub as CommandUnknownOpts;
    });
    // A group the line does not name is only listed by the root's help and suggestions: commander
    // never reaches its commands, examples or hooks, so they are not made.
    if (argv !== undefined && !words.has(group.name)) return { command, commands: Promise.resolve([]) };
    // `crawl keys help rotate` is `crawl help keys rotate`: a name it does not know is a usage
    // error there too. Hidden: `crawl help` is the one the listings show.
    command
      .command('help', { hidden: true })
      .description('help on a command of this group')
      .argument('[command...]')
      .action((words) => {
        hooks.setExitCode(helpTopic(program as CommandUnknownOpts, [group.name, ...words], { write: (text) => streams.writeHelp(text), width: helpWidth() }));
      });
    group.configure?.(command);
    return { command, commands: commandsOf(group.commands, [group.name], exec, named) };
  });
  const rootOwn = commandsOf(rootCommands, [], exec, named);
  // Built side by side: each a module to load.
  for (const { command, commands } of groupCommands) addAll(command as CommandUnknownOpts, await commands);
  addAll(program as CommandUnknownOpts, await rootOwn);
  program
    .command('help')
    .description('help on a command, or a topic: exit-codes, environment')
    .argument('[topic...]', 'exit-codes, environment, or a command')
    .action((topic) => {
      hooks.setExitCode(helpTopic(program as CommandUnknownOpts, topic, { write: (text) => streams.writeHelp(text), width: helpWidth() }));
    });
  inheritSettings(program as CommandUnknownOpts);
  gettingStarted(program);
  return program;
}

/** Whether a run builds a command: the words of a command line name it, or it is the default of a group they name. */
type Named = (path: readonly string[], registration: Registration, facts: CommandFacts | undefined) => boolean;

/**
 * commander finds a subcommand only by a word of the command line that is its name or alias (a
 * group's, then its command's), and runs a group's default command only when the line names the
 * group: so these are the commands a line can run or ask help of (`crawl help job watch`; `crawl
 * job status watch` builds two, and `crawl job --help` the default one).
 */
function namedBy(argv: readonly string[], root: CommandUnknownOpts): Named {
  const words = new Set(argv);
  const asksHelp = helpAskedOf(argv, root);
  return (path, registration, facts) => {
    if (path.length > 0 && !path.every((word) => words.has(word))) return false;
    // A group's default is needed when the line may run it; its help lists it from the table.
    return words.has(registration.name) || (facts?.aliases.some((alias) => words.has(alias)) ?? false) || (registration.isDefault === true && path.length > 0 && !asksHelp);
  };
}

/**
 * Whether commander will show a group's help rather than run its default command: `--help` or
 * `-h` before any `--` and not the value of a global flag (`crawl job --help`, `crawl job x -h`;
 * not `crawl job x --jq -h`). The root reads its own flags anywhere on the line; a group has none
 * of its own, and shows its help before it dispatches to its default command.
 */
function helpAskedOf(argv: readonly string[], root: CommandUnknownOpts): boolean {
  const takesValue = (word: string): boolean => root.options.some((o) => (o.required || o.optional) && (o.long === word || o.short === word));
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] as string;
    if (word === '--') return false;
    if (word === '--help' || word === '-h') return true;
    if (takesValue(word)) i++;
  }
  return false;
}

interface Declared {
  command: CommandUnknownOpts;
  registration: Registration;
}

/** A group's (or the root's) commands, in order: built when named (or not in the table yet), else listed from the table. */
function commandsOf(registrations: readonly Registration[], path: readonly string[], exec: Exec, named: Named): Promise<Declared[]> {
  return Promise.all(
    registrations.map(async (registration) => {
      const facts = COMMAND_TABLE[[...path, registration.name].join(' ')];
      const command = facts === undefined || named(path, registration, facts) ? await registration.build(exec) : listed(registration.name, facts);
      return { command, registration };
    }),
  );
}

function addAll(parent: CommandUnknownOpts, declared: readonly Declared[]): void {
  for (const { command, registration } of declared) {
    parent.addCommand(command, { ...(registration.isDefault ? { isDefault: true } : {}), ...(registration.hidden ? { hidden: true } : {}) });
  }
}

/** How a command this run does not build is listed: its term as its own flags and arguments would make it. */
const listedTerms = new WeakMap<CommandUnknownOpts, string>();

function listed(name: string, facts: CommandFacts): CommandUnknownOpts {
  const command = new Command(name).description(facts.description) as CommandUnknownOpts;
  if (facts.aliases.length > 0) command.aliases(facts.aliases);
  listedTerms.set(command, facts.term);
  return command;
}

const termByCommander = Help.prototype.subcommandTerm;

function listedTerm(this: Help, command: CommandUnknownOpts): string {
  return listedTerms.get(command) ?? termByCommander.call(this, command);
}

/** What `crawl --help` (and a bare `crawl`) says after the flags: the first steps, then examples. */
function gettingStarted(program: Program): void {
  withNotes(program, 'Getting started', [
    '1. Point crawl at the service: `crawl config set base-url <url>` (or set CRAWL_BASE_URL).',
    '2. Log in: `crawl auth login` asks for an API key, checks it with the service and stores it; `crawl auth status` shows what is in use.',
    '3. No service yet? `crawl sandbox` runs a local one with demo jobs, and prints the two lines to export in another shell.',
    'Help on any command: `crawl <command> --help` or `crawl help <command>`; `crawl help exit-codes`, `crawl help environment`.',
  ]);
  withExamples(program, [
    ['a job, its fields aligned', 'crawl job "$JOB_ID"'],
    ['follow a job until it finishes, then export its pages as NDJSON', 'crawl job watch "$JOB_ID" && crawl job pages "$JOB_ID" --output pages.ndjson'],
    ['the API keys of the account', 'crawl keys list'],
    ['try everything against a local sandbox', 'crawl sandbox'],
  ]);
}

const listedByCommander = Help.prototype.visibleCommands;

/** The commands a help lists: those declared, without the help command commander adds to a group. */
function declaredCommands(this: Help, command: CommandUnknownOpts): CommandUnknownOpts[] {
  return listedByCommander.call(this, command).filter((c) => command.commands.includes(c));
}

/**
 * commander's error text in our words: its first line is the message; its "(Did you mean job?)"
 * becomes a hint naming the whole command (`crawl keys list`), or the option.
 */
function commanderError(text: string, reached: CommandUnknownOpts, argv: readonly string[]): { message: string; hint: string | undefined } {
  const [first = '', ...rest] = text.trim().split('\n');
  const message = first.replace(/^error:\s*/i, '').trim();
  const suggestion = /\(Did you mean (.+)\?\)/.exec(rest.join(' '))?.[1];
  // A global flag without its value (`crawl job <id> --jq`) is found by the root before any
  // subcommand is reached: the help meant is that of the command the words name, which lists it too.
  const helped = /^option '.+' argument missing$/.test(message) ? commandNamed(reached, argv) : reached;
  const path: string[] = [];
  for (let c: CommandUnknownOpts | null = helped; c; c = c.parent) path.unshift(c.name());
  // `-v` is the version in many tools, and the verbose flag in others: crawl has both, spelled out.
  if (/^unknown option '-v'$/.test(message)) return { message, hint: 'the version is -V (--version); an HTTP trace is --verbose' };
  // gh's `run watch --exit-status`: crawl's watch needs no flag for it.
  if (message === "unknown option '--exit-status'" && path.join(' ') === 'crawl job watch') {
    return { message, hint: "`crawl job watch` always exits with the job's code (0 completed, 10-13 errored or cancelled, 7 at --max-wait): leave --exit-status out" };
  }
  // gh, npm and go have a `version` command; crawl has the flag.
  if (message === "unknown command 'version'" && reached.parent === null) return { message, hint: 'did you mean `crawl --version`?' };
  // The help of the command reached: its arguments and flags are what was missing or mistyped.
  if (suggestion === undefined) return { message, hint: `run \`${path.join(' ')} --help\` for usage` };
  if (suggestion.startsWith('-')) return { message, hint: `did you mean ${suggestion}?` };
  return { message, hint: `did you mean \`${[...path, suggestion].join(' ')}\`?` };
}

/**
 * The command the words of the command line lead to, from the root down: each word that names a
 * subcommand, or else the group's default command (`crawl job <id>` is `crawl job status`). The
 * values of flags are skipped, so `--profile ci` is not read as a command.
 */
function commandNamed(reached: CommandUnknownOpts, argv: readonly string[]): CommandUnknownOpts {
  let root = reached;
  while (root.parent) root = root.parent;
  let at = root;
  const flags = (): Option[] => {
    const all: Option[] = [];
    for (let c: CommandUnknownOpts | null = at; c; c = c.parent) all.push(...(c.options as Option[]));
    return all;
  };
  const words = [...argv];
  while (words.length > 0) {
    const word = words.shift() ?? '';
    if (word === '--') break;
    if (word.startsWith('-')) {
      const flag = flags().find((o) => o.long === word || o.short === word);
      if (flag?.required && !word.includes('=')) words.shift();
      continue;
    }
    const sub = at.commands.find((c) => c.name() === word || c.aliases().includes(word)) ?? defaultCommand(at);
    if (!sub) break;
    at = sub;
    if (sub.name() !== word) break;
  }
  return at;
}

/** The command `{ isDefault: true }` made the group's default: commander keeps its name in a field of its own. */
function defaultCommand(group: CommandUnknownOpts): CommandUnknownOpts | undefined {
  const name = (group as unknown as { _defaultCommandName?: string | null })._defaultCommandName;
  return name ? group.commands.find((c) => c.name() === name) : undefined;
}

/**
 * Commands made by their own modules (`new Command`, then addCommand) do not inherit what the root
 * set, as `.command()` children do: no process.exit on errors, the same output, suggestions, help flag.
 */
function inheritSettings(parent: CommandUnknownOpts): void {
  for (const child of parent.commands) {
    child.copyInheritedSettings(parent);
    inheritSettings(child);
  }
}

function isTerminal(streams: RawStreams, fd: 1 | 2): boolean {
  return streams.mayBeTerminal(fd) && (fd === 1 ? streams.isTTY.stdout : streams.isTTY.stderr);
}

/**
 * commander's output, with the streams built only when they are needed: help and the version go
 * through writeHelp (straight to fd 1 when it is not a terminal). 80 columns when not a terminal.
 */
function output(hooks: ProgramHooks, outputError: (text: string) => void) {
  const { streams, env } = hooks;
  return {
    outputError,
    writeOut: (text: string) => streams.writeHelp(text),
    // commander writes here only the help it shows for a command with no subcommand (`crawl`,
    // `crawl keys`): asked for by running the bare command, so it is output, as gh does it.
    writeErr: (text: string) => streams.writeHelp(text),
    getOutHelpWidth: () => (isTerminal(streams, 1) ? streams.columns : 80),
    getErrHelpWidth: () => (isTerminal(streams, 1) ? streams.columns : 80),
    getOutHasColors: () => colorEnabled({ env, noColorFlag: false, isTTY: isTerminal(streams, 1) }),
    getErrHasColors: () => colorEnabled({ env, noColorFlag: false, isTTY: isTerminal(streams, 1) }),
  };
}

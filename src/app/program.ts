import { Command, Option, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { groups, helpTopic, sandbox, type Exec } from '../commands/index.js';
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
    .addOption(new Option('--base-url <url>', 'base URL of the service (env CRAWL_BASE_URL)'))
    .addOption(new Option('--profile <name>', 'config profile to use (env CRAWL_PROFILE)'))
    .addOption(new Option('--no-color', 'no colour (also NO_COLOR)'))
    .addOption(new Option('--no-input', 'never prompt'))
    .addOption(timeoutOption())
    .addOption(new Option('--verbose', 'HTTP trace on stderr (keys redacted)'))
    .addOption(new Option('--allow-http', 'allow plain http:// to a non-loopback host'));
}

export type Program = ReturnType<typeof rootCommand>;

/** The global flags as parsed so far (all of them once a command runs). */
export function globalsOf(program: Program): GlobalOptions {
  const opts = program.opts();
  return {
    json: opts.json === true,
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
  streams: RawStreams;
  env: Env;
  /** Runs a command: builds its Deps from the global flags, runs it, records its exit code. */
  exec: (program: Program) => Exec;
  /** commander's own error text (unknown command, missing argument), reported by runCli. */
  onCommanderError: (text: string) => void;
  /** The exit code of a command that runs without Deps (`crawl help <topic>`). */
  setExitCode: (code: number) => void;
}

/** The program: the root's global flags and every command, each declared by its own module. */
export function buildProgram(hooks: ProgramHooks): Program {
  const program = rootCommand();
  program.showSuggestionAfterError(true).exitOverride().configureOutput(output(hooks));
  const exec = hooks.exec(program);
  for (const group of groups) {
    group.register(program.command(group.name).helpCommand(false).description(group.description), exec);
  }
  program.addCommand(sandbox.command((o) => exec(sandbox.run, o)));
  program
    .command('help')
    .description('help on a command, or a topic: exit-codes, environment')
    .argument('[topic...]', 'exit-codes, environment, or a command')
    .action((topic) => {
      hooks.setExitCode(helpTopic(program as CommandUnknownOpts, topic, (text) => hooks.streams.writeHelp(text)));
    });
  inheritSettings(program as CommandUnknownOpts);
  return program;
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

/**
 * commander's output, with the streams built only when they are needed: help and the version go
 * through writeHelp (straight to fd 1 when it is not a terminal). 80 columns when not a terminal.
 */
function output(hooks: ProgramHooks) {
  const { streams, env } = hooks;
  const isTTY = (fd: 1 | 2): boolean => streams.mayBeTerminal(fd) && (fd === 1 ? streams.isTTY.stdout : streams.isTTY.stderr);
  return {
    outputError: (text: string) => hooks.onCommanderError(text),
    writeOut: (text: string) => streams.writeHelp(text),
    writeErr: (text: string) => void streams.stderr.write(text),
    getOutHelpWidth: () => (isTTY(1) ? streams.columns : 80),
    getErrHelpWidth: () => (isTTY(2) ? streams.columns : 80),
    getOutHasColors: () => colorEnabled({ env, noColorFlag: false, isTTY: isTTY(1) }),
    getErrHasColors: () => colorEnabled({ env, noColorFlag: false, isTTY: isTTY(2) }),
  };
}

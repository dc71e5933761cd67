import type { Env } from '../deps.js';
import { FilterError, FilterHalt, UsageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { createIO, type RawStreams } from '../io/io.js';
import type { JsonFilter } from '../io/jq.js';
import { isClosedPipe, OutputClosedError, writeError } from '../io/write-error.js';
import type { Clock } from '../platform/clock.js';
import { hostPlatform } from '../platform/host.js';
import type { Platform } from '../platform/platform.js';
import { Redactor } from '../text/redact.js';
import { sanitizeLines } from '../text/sanitize.js';
import { quotingFor, suggestionFlags } from '../text/shell.js';
import type { Entry } from '../commands/shared/exec.js';
import { NO_GLOBAL_FLAGS } from '../commands/shared/global-defaults.js';
import { work } from '../commands/work.js';
import { quietExitCode, reportError } from './exit.js';
import type { RunDeps } from './factory.js';
import { Guard } from './guard.js';
import type * as ProgramModule from './program.js';
import type { Program } from './program.js';

/** What the completion scripts run at each Tab (commands/completion/lib/protocol.ts). */
const TAB_COMMAND = '__complete';

/** The request of a line the completion scripts sent, as the hidden command would get it; undefined for any other line. */
async function tabRequest(argv: readonly string[]): Promise<string[] | undefined> {
  return argv[0] === TAB_COMMAND ? (await import('../commands/completion/lib/protocol.js')).scriptArgs(argv.slice(1)) : undefined;
}

/** What a run gets from the world it runs in: the process (src/main.ts) or a test. */
export interface System {
  env: Env;
  streams: RawStreams;
  clock: Clock;
  /** Aborted on Ctrl-C / SIGTERM, with an InterruptedError (130 / 143) as its reason. */
  signal?: AbortSignal;
  /** Given by the process, which must see the run's critical sections to exit safely. */
  guard?: Guard;
  /** For the User-Agent: `node/<version>`. */
  nodeVersion: string;
  /** The system the run is on; this process's by default (a test gives another to run its branch). */
  platform?: Platform;
}

/**
 * Runs the CLI for argv (without node and script) and resolves with its exit code: parses,
 * builds the Deps, runs the command, and maps every failure to its exit code in one place.
 * It never exits, never touches `process`: the caller decides what to do with the code.
 */
export async function runCli(argv: readonly string[], system: System): Promise<number> {
  const { streams, env } = system;
  const platform = system.platform ?? hostPlatform();
  // Its deadlines are the HTTP layer's, on the run's clock.
  const guard = system.guard ?? new Guard(() => system.clock.now());
  // stdout failing (the reader went away, a full disk) ends the run as an interrupt would.
  // Both made when first needed (a command's Deps, or stdout failing): help needs neither.
  let outputGone: AbortController | undefined;
  const gone = (): AbortController => (outputGone ??= new AbortController());
  let runSignal: AbortSignal | undefined;
  const signalOfRun = (): AbortSignal => (runSignal ??= system.signal ? AbortSignal.any([system.signal, gone().signal]) : gone().signal);
  let deps: RunDeps | undefined;
  let program: Program | undefined;
  let programModule: typeof ProgramModule | undefined;
  let exitCode: number = ExitCode.ok;
  let commanderError: { message: string; hint: string | undefined } | undefined;
  let stdoutFailure: NodeJS.ErrnoException | undefined;

  // Errors in the command's mode; before the command has Deps (a usage error), as the flags say so far.
  const report = (error: unknown): number => {
    if (deps) return deps.report(error);
    const globals = program ? programModule?.globalsOf(program) : undefined;
    const io = createIO(streams, new Redactor(), { env, noColor: true, noInput: true });
    const flags = [...suggestionFlags(globals?.profile ?? env.CRAWL_PROFILE, globals?.baseUrl), ...(globals?.allowHttp ? ['--allow-http'] : [])];
    return reportError(io, error, { json: globals?.json ?? false, verbose: globals?.verbose ?? false, redact: (text) => text, suggestionFlags: flags, quoting: quotingFor(platform, env) });
  };

  streams.onError({
    stdout: function onStdoutError(error) {
      // A key being handed over: the command saw the failure itself and says where the key is.
      if (deps?.handledStdoutError(error)) return;
      // Never cut a critical section (a config write, a key not yet stored): after it, then.
      if (guard.criticalOpen()) return void guard.noCriticalOpen().then(() => onStdoutError(error));
      stdoutFailure ??= error;
      gone().abort(isClosedPipe(error) ? new OutputClosedError() : writeError(undefined, error));
    },
    // stderr on a full disk or a closed pipe: nothing can be said there any more, but the
    // command's own outcome (and exit code) stands.
    stderr: () => undefined,
  });

  try {
    // Tab's answer is due before the user notices: a request as the scripts send it is answered
    // without the program (commander, every command's declaration), which costs more to load
    // than the answer. The program's hidden command of that name does the same work for any
    // other line (a global flag first, a request of another form).
    const tab = await tabRequest(argv);
    if (tab !== undefined) {
      const [{ createDeps }, completeRun, { COMPLETION_TREE }] = await Promise.all([import('./factory.js'), work.completeRun(), import('../commands/completion/completion-tree.js')]);
      deps = createDeps({ env, platform, streams, clock: system.clock, globals: NO_GLOBAL_FLAGS, signal: signalOfRun(), guard, nodeVersion: system.nodeVersion });
      exitCode = await completeRun(deps, { args: tab, tree: COMPLETION_TREE });
    } else {
      programModule = await import('./program.js');
      const { buildProgram, globalsOf } = programModule;
      program = await buildProgram({
        argv,
        streams,
        env,
        onCommanderError: (error) => {
          commanderError = error;
        },
        setExitCode: (code) => {
          exitCode = code;
        },
        exec: (root) => (name) => async (options) => {
          // Loaded only when a command runs: help, the version and usage errors never build Deps,
          // and no command's work (commands/work.ts) loads before its flags are read.
          const [{ createDeps }, entry] = await Promise.all([import('./factory.js'), work[name]()]);
          const globals = globalsOf(root);
          // Compiled before anything is sent: a filter jq cannot read is a usage error (exit 2).
          // What the filter prints itself (debug, stderr) is redacted like all else on stderr (it runs
          // once deps exist), and on a terminal cleared of what would act on it.
          const jq = globals.jq === undefined ? undefined : await loadFilter(globals.jq, (text) => void deps?.io.stderr.write((deps.io.stderrIsTTY ? sanitizeLines(text) : text) + '\n'));
          deps = createDeps({ env, platform, streams, clock: system.clock, globals, signal: signalOfRun(), guard, nodeVersion: system.nodeVersion, jq });
          // The entry point of that name takes the options its registration was checked against.
          const run = entry as Entry<typeof name>;
          const code = await run(deps, options);
          exitCode = typeof code === 'number' ? code : ExitCode.ok;
        },
      }, argv);
      await program.parseAsync(argv, { from: 'user' });
    }
  } catch (error) {
    guard.runCleanups();
    exitCode = failureCode(error, programModule?.asCommanderError(error), commanderError, report);
  } finally {
    guard.runCleanups();
    await deps?.close();
    // A write error that has not surfaced yet (help or a table sent to a full disk) reaches the
    // handler above before the exit code is decided.
    if (stdoutFailure === undefined && !deps?.stdoutBroken() && !system.signal?.aborted) await streams.flush();
  }
  if (stdoutFailure !== undefined) {
    // The reader went away (`crawl keys list | head -1`): it has what it wanted. A command whose
    // code is a job's outcome said what that is so far (`job watch x --json | head -1`: 1, still running).
    if (isClosedPipe(stdoutFailure)) return deps?.readerLeftCode() ?? ExitCode.ok;
    // A full disk or an I/O error: one line, exit 1.
    return report(writeError(undefined, stdoutFailure));
  }
  return exitCode;
}

async function loadFilter(filter: string, onMessage: (text: string) => void): Promise<JsonFilter> {
  const { loadJsonFilter } = await import('../io/jq.js');
  return loadJsonFilter(filter, {
    compileError: (message) => new UsageError(`invalid --jq filter: ${message}`, 'see the jq manual for its syntax; quote the filter for the shell'),
    runtimeError: (message) => new FilterError(message),
    halted: (exitCode, stderr) => new FilterHalt(exitCode, stderr),
    onMessage,
  });
}

/** `thrown`, when it is commander's own (help shown, a usage error), as its code and message. */
function failureCode(
  error: unknown,
  thrown: { code: string; message: string } | undefined,
  commanderError: { message: string; hint: string | undefined } | undefined,
  report: (error: unknown) => number,
): number {
  const quiet = quietExitCode(error);
  if (quiet !== undefined) return quiet;
  if (thrown !== undefined) {
    // Help asked for (--help, `crawl help`), or shown for a bare command (`crawl`, `crawl keys`).
    if (thrown.code === 'commander.helpDisplayed' || thrown.code === 'commander.version' || thrown.code === 'commander.help') return ExitCode.ok;
    const message = commanderError?.message ?? thrown.message.replace(/^error:\s*/i, '').trim();
    return report(new UsageError(message, commanderError?.hint ?? 'run `crawl --help` for usage'));
  }
  return report(error);
}

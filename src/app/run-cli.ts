import { CommanderError } from 'commander';
import { InterruptedError, UsageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { processIO } from '../io/io.js';
import { builtStdout, onStdioError, settleStdout } from '../io/stdio.js';
import { isClosedPipe, writeError } from '../io/write-error.js';
import { criticalOpen, exitHoldMs, noCriticalOpen } from './guard.js';
import { buildProgram, type ProgramState } from './program.js';
import { reportError } from './exit.js';

/**
 * What bin/crawl.js calls: runs the CLI, then exits with its code once stdout has drained, so
 * piped output is never cut short and no idle keep-alive socket or timer holds the process open.
 */
export function run(argv: string[]): void {
  void main(argv).then((code) => {
    finished = true;
    // After a signal the reader is not waited for: it has whole lines, and that is all it gets.
    if (signalled) return void settleStdout(LONG_LINE_GRACE_MS).then(() => process.exit(code));
    const out = builtStdout();
    if (out && out.writableLength > 0) out.once('drain', () => process.exit(code));
    else process.exit(code);
  });
}

/** A signal came: stdout is no longer flushed to a slow reader, only settled (see settleStdout). */
let signalled = false;
/** main() has returned: a signal now only waits for stdout to settle. */
let finished = false;

/**
 * Runs the CLI for argv (without node and script) and resolves with the exit code. Only a signal
 * or a broken stdout ends the process here.
 */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const interrupter = new AbortController();
  const state: ProgramState = {};
  // Errors in the command's mode; before the command has a context (a usage error), as argv asks.
  const report = (error: unknown): number =>
    reportError(state.ctx?.io ?? processIO(env, { noColor: true, noInput: true }), error, {
      json: state.ctx?.globals.json ?? argv.includes('--json'),
      verbose: state.ctx?.globals.verbose ?? argv.includes('--verbose'),
      redact: (text) => state.ctx?.redact(text) ?? text,
    });
  const onSignal = (signal: NodeJS.Signals): void => {
    const code = signal === 'SIGTERM' ? ExitCode.terminated : ExitCode.interrupted;
    // A second Ctrl-C: leave now (once a key or the config is safe; a slow reader is not waited for).
    if (interrupter.signal.aborted) return exitWhenSafe(code, 0, false);
    signalled = true;
    state.ctx?.runCleanups();
    interrupter.abort(new InterruptedError(code));
    // Whatever the command is doing, the process ends promptly.
    exitWhenSafe(code, finished ? 0 : FORCED_EXIT_MS, true);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let stdoutFailed = false;
  const onStdoutError = (error: NodeJS.ErrnoException): void => {
    stdoutFailed = true;
    // A key being handed over: the command saw the failure itself and says where the key is.
    if (state.ctx?.handledStdoutError(error)) return;
    // Never cut a critical section (a config write, a key not yet stored): after it, then.
    if (criticalOpen()) return void noCriticalOpen().then(() => onStdoutError(error));
    state.ctx?.runCleanups();
    // The reader went away (`crawl job watch x --json | head -1`): it has what it wanted.
    if (isClosedPipe(error)) process.exit(ExitCode.ok);
    // A full disk or an I/O error: one line, exit 1, instead of a stack trace.
    process.exit(report(writeError(undefined, error)));
  };
  onStdioError({
    stdout: onStdoutError,
    // stderr on a full disk or a closed pipe: nothing can be said there any more, but the command's
    // own outcome (and exit code) stands; an unhandled 'error' would turn it into a crash with exit 1.
    stderr: () => undefined,
  });

  const program = buildProgram({ argv, env, interrupt: interrupter.signal, state });
  try {
    await program.parseAsync(argv, { from: 'user' });
    return typeof state.exitCode === 'number' ? state.exitCode : ExitCode.ok;
  } catch (error) {
    state.ctx?.runCleanups();
    if (error instanceof InterruptedError) return error.exitCode;
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return ExitCode.ok;
      if (error.code === 'commander.help') return argv.length === 0 ? ExitCode.ok : ExitCode.usage;
      const message = (state.commanderError ?? error.message).replace(/^error:\s*/i, '').trim();
      error = new UsageError(message, 'run `crawl --help` for usage');
    }
    return report(error);
  } finally {
    state.ctx?.runCleanups();
    await state.ctx?.close();
    // A write error that has not surfaced yet (help or a table sent to a full disk) reaches the
    // handler above, which reports it, before this exit code is used.
    const out = builtStdout();
    if (out && !stdoutFailed && !signalled) await flushed(out);
  }
}

const FORCED_EXIT_MS = 2000;
/** Once a critical section closes, the command gets this long to report before the exit. */
const GRACE_MS = 1000;
/**
 * On a signal, a line longer than PIPE_BUF that is half in the pipe gets this long to finish, so
 * the reader's last line parses; a reader that does not read in that time gets half a line.
 */
const LONG_LINE_GRACE_MS = 1000;
/**
 * However long a critical section takes, the process is gone this long after the signal, or after
 * the answer to a POST or DELETE that was on the wire (each bounded by --timeout).
 */
const HARD_LIMIT_MS = 10_000;

/**
 * Exits with `code` after `delayMs`, but never inside a critical section (a key between the
 * service and its only copy, the config half-replaced): then it waits for the section to close and
 * gives the command a moment to say where things stand. Nor, unless told to hurry, with half a
 * line on stdout: what stdout still holds is dropped once its reader has whole lines (settleStdout),
 * never waited out for a slow reader. By HARD_LIMIT_MS it exits regardless, unless a POST or
 * DELETE is still being answered (exitHoldMs).
 */
function exitWhenSafe(code: number, delayMs: number, flushStdout: boolean): void {
  const expire = (): void => {
    const hold = exitHoldMs(HARD_LIMIT_MS);
    if (hold > 0) setTimeout(expire, hold).unref();
    else process.exit(code);
  };
  setTimeout(expire, HARD_LIMIT_MS).unref();
  const attempt = (): void => {
    if (criticalOpen()) return void noCriticalOpen().then(() => setTimeout(attempt, GRACE_MS).unref());
    if (flushStdout) return void settleStdout(LONG_LINE_GRACE_MS).then(() => process.exit(code));
    process.exit(code);
  };
  if (delayMs === 0) attempt();
  else setTimeout(attempt, delayMs).unref();
}

/** Resolves once everything written to the stream so far has been handed to the system (or failed). */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.destroyed || stream.writableEnded) return Promise.resolve();
  return new Promise((resolve) => {
    stream.write('', () => setImmediate(resolve));
  });
}

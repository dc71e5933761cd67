// The process adapter, and the only module of the CLI that touches `process` (with
// io/system-streams.ts): the environment, the real streams, signals, and the exit once stdout has
// drained. Everything else runs in runCli, which tests call in-process.
import { Guard } from './app/guard.js';
import { runCli } from './app/run-cli.js';
import { InterruptedError } from './errors.js';
import { ExitCode } from './exit-codes.js';
import { systemStreams, type SystemStreams } from './io/system-streams.js';
import { realClock } from './platform/clock.js';

/** After Ctrl-C, the command gets this long to end on its own before the process ends it. */
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
 * What bin/crawl.js calls: runs the CLI, then exits with its code once stdout has drained, so
 * piped output is never cut short and no idle keep-alive socket or timer holds the process open.
 */
export function run(argv: string[]): void {
  const streams = systemStreams();
  const guard = new Guard();
  const interrupter = new AbortController();
  let finished = false;

  const onSignal = (signal: NodeJS.Signals): void => {
    const code = signal === 'SIGTERM' ? ExitCode.terminated : ExitCode.interrupted;
    // A second Ctrl-C: leave now (once a key or the config is safe; a slow reader is not waited for).
    if (interrupter.signal.aborted) return exitWhenSafe(code, 0);
    guard.runCleanups();
    interrupter.abort(new InterruptedError(code));
    // Whatever the command is doing, the process ends promptly.
    exitWhenSafe(code, finished ? 0 : FORCED_EXIT_MS);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  /**
   * Exits with `code` after `delayMs`, but never inside a critical section (a key between the
   * service and its only copy, the config half-replaced): then it waits for the section to close
   * and gives the command a moment to say where things stand. What stdout still holds is dropped
   * once its reader has whole lines (settleStdout), never waited out for a slow reader. By
   * HARD_LIMIT_MS it exits regardless, unless a POST or DELETE is still being answered.
   */
  const exitWhenSafe = (code: number, delayMs: number): void => {
    const expire = (): void => {
      const hold = guard.exitHoldMs(HARD_LIMIT_MS);
      if (hold > 0) setTimeout(expire, hold).unref();
      else process.exit(code);
    };
    setTimeout(expire, HARD_LIMIT_MS).unref();
    const attempt = (): void => {
      if (guard.criticalOpen()) return void guard.noCriticalOpen().then(() => setTimeout(attempt, GRACE_MS).unref());
      void streams.settleStdout(LONG_LINE_GRACE_MS).then(() => process.exit(code));
    };
    if (delayMs === 0) attempt();
    else setTimeout(attempt, delayMs).unref();
  };

  void runCli(argv, { env: process.env, streams, clock: realClock, signal: interrupter.signal, guard, nodeVersion: process.versions.node }).then(
    (code) => {
      finished = true;
      exitAfterDrain(streams, code, interrupter.signal.aborted);
    },
  );
}

/** The exit once the run is over: after a signal the reader is not waited for, it has whole lines. */
function exitAfterDrain(streams: SystemStreams, code: number, signalled: boolean): void {
  if (signalled) return void streams.settleStdout(LONG_LINE_GRACE_MS).then(() => process.exit(code));
  const out = streams.builtStdout();
  if (out && out.writableLength > 0) out.once('drain', () => process.exit(code));
  else process.exit(code);
}

/** Runs the CLI with the process's streams and resolves with the exit code, leaving the process alone. */
export function main(argv: string[]): Promise<number> {
  return runCli(argv, { env: process.env, streams: systemStreams(), clock: realClock, nodeVersion: process.versions.node });
}

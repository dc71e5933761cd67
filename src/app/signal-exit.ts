import { InterruptedError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import type { Clock } from '../platform/clock.js';
import { terminatingSignals, type Platform } from '../platform/platform.js';
import type { Guard } from './guard.js';

/** After Ctrl-C, the command gets this long to end on its own before the process ends it. */
export const FORCED_EXIT_MS = 2000;
/** Once a critical section closes, the command gets this long to report before the exit. */
export const GRACE_MS = 1000;
/**
 * On a signal, a line longer than PIPE_BUF that is half in the pipe gets this long to finish, so
 * the reader's last line parses; a reader that does not read in that time gets half a line.
 */
export const LONG_LINE_GRACE_MS = 1000;
/**
 * However long a critical section takes, the process is gone this long after the signal, or after
 * the answer to a POST or DELETE that was on the wire (each bounded by --timeout).
 */
export const HARD_LIMIT_MS = 10_000;

export interface SignalExitParts {
  guard: Guard;
  /** Its deadlines never keep the process alive by themselves. */
  clock: Pick<Clock, 'deadline'>;
  /** Resolves once stdout's reader has whole lines (see io/system-streams.ts). */
  settleStdout(graceMs: number): Promise<void>;
  exit(code: number): void;
}

export interface SignalExit {
  /** Ctrl-C (SIGINT) or SIGTERM. */
  onSignal(signal: 'SIGINT' | 'SIGTERM'): void;
  /** The run has ended on its own: a later signal exits at once (when safe). */
  finished(): void;
  /** The run's interrupt: aborted with an InterruptedError (130 or 143) on the first signal. */
  readonly interrupt: AbortSignal;
}

/**
 * What a signal does to the process: the first aborts the run's interrupt and exits after the
 * forced-exit delay, a second exits at once; but never inside a critical section (a key between
 * the service and its only copy, the config half-replaced): then it waits for the section to close
 * and gives the command a moment to say where things stand. What stdout still holds is dropped
 * once its reader has whole lines, never waited out for a slow reader. By HARD_LIMIT_MS it exits
 * regardless, unless a POST or DELETE is still being answered.
 */
export function signalExit(parts: SignalExitParts): SignalExit {
  const { guard, clock } = parts;
  const interrupter = new AbortController();
  let finished = false;
  let exited = false;
  const exit = (code: number): void => {
    if (exited) return;
    exited = true;
    parts.exit(code);
  };

  const exitWhenSafe = (code: number, delayMs: number): void => {
    const expire = (): void => {
      const hold = guard.exitHoldMs(HARD_LIMIT_MS);
      if (hold > 0) void clock.deadline(hold).then(expire);
      else exit(code);
    };
    void clock.deadline(HARD_LIMIT_MS).then(expire);
    const attempt = (): void => {
      if (guard.criticalOpen()) return void guard.noCriticalOpen().then(() => clock.deadline(GRACE_MS).then(attempt));
      void parts.settleStdout(LONG_LINE_GRACE_MS).then(() => exit(code));
    };
    if (delayMs === 0) attempt();
    else void clock.deadline(delayMs).then(attempt);
  };

  return {
    interrupt: interrupter.signal,
    finished() {
      finished = true;
    },
    onSignal(signal) {
      const code = signal === 'SIGTERM' ? ExitCode.terminated : ExitCode.interrupted;
      // A second Ctrl-C: leave now (once a key or the config is safe; a slow reader is not waited for).
      if (interrupter.signal.aborted) return exitWhenSafe(code, 0);
      guard.runCleanups();
      interrupter.abort(new InterruptedError(code));
      // Whatever the command is doing, the process ends promptly.
      exitWhenSafe(code, finished ? 0 : FORCED_EXIT_MS);
    },
  };
}

/**
 * The process's signals, as `on` (process.on) delivers them, wired to `signals`: SIGINT is Ctrl-C;
 * SIGTERM, SIGHUP (the terminal or console window closed) and, on Windows, Ctrl-Break (SIGBREAK)
 * end a run as SIGTERM does (platform.ts's terminatingSignals): never inside a critical section.
 */
export function listenForSignals(signals: Pick<SignalExit, 'onSignal'>, platform: Pick<Platform, 'os'>, on: (name: NodeJS.Signals, listener: () => void) => void): void {
  on('SIGINT', () => signals.onSignal('SIGINT'));
  for (const name of terminatingSignals(platform)) on(name, () => signals.onSignal('SIGTERM'));
}

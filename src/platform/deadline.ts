import { setMaxListeners } from 'node:events';
import type { Clock } from './clock.js';

/**
 * Why a deadline is called off, for every wait on the clock that the work it bounds has outlived:
 * made once, since abort() without a reason makes a DOMException (and its stack) on every request,
 * poll and keyring call, for a rejection nobody reads.
 */
export const CALLED_OFF = new Error('called off: the work ended first');

/**
 * `work`, or `giveUp()` thrown once the deadline (a `clock` time) has passed: a poll may not
 * outlast --max-wait, nor Tab wait on a slow service, for a whole --timeout.
 */
export async function withinDeadline<T>(clock: Clock, deadline: number | undefined, work: Promise<T>, giveUp: () => Error): Promise<T> {
  if (deadline === undefined) return work;
  const settled = new AbortController();
  const expired = clock.deadline(Math.max(0, deadline - clock.now()), settled.signal).then(() => {
    throw giveUp();
  });
  // Once the work has settled, the deadline's rejection (the abort) is of no interest.
  expired.catch(() => undefined);
  try {
    // race() subscribes to `work`, so its late failure is handled; the abandoned request dies with the client.
    return await Promise.race([work, expired]);
  } finally {
    settled.abort(CALLED_OFF);
  }
}

/** A piece of work's signal, aborted at its deadline or when a signal it follows aborts. */
export interface TimeoutSignal {
  readonly signal: AbortSignal;
  /** Whether it was aborted by the deadline (rather than by a signal it follows). */
  timedOut(): boolean;
  /** The work is over: the deadline is called off and the signals followed let go. */
  stop(): void;
}

/**
 * A signal that aborts (with a TimeoutError, as AbortSignal.timeout's) once `ms` have passed on
 * `clock`, or with the reason of the first of `follows` to abort; `stop()` ends both when the
 * work it bounds is over. On the run's clock, so that a test's fake clock decides when a hung
 * request times out, as it decides every other wait.
 *
 * One controller, one timer and a listener on each signal followed, taken off by stop(): every
 * request makes one, and AbortSignal.any (with a second controller to call a deadline off) left
 * weak references and finalizers behind each request until a full collection, so that a watch of
 * many jobs grew its heap poll after poll.
 */
export function timeoutSignal(clock: Pick<Clock, 'after'>, ms: number, follows: readonly AbortSignal[] = []): TimeoutSignal {
  const controller = new AbortController();
  let timedOut = false;
  const callOff = clock.after(ms, () => {
    timedOut = true;
    controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
  });
  const onAbort = function (this: AbortSignal): void {
    controller.abort(this.reason);
  };
  // The first to have aborted gives the reason, as with AbortSignal.any.
  for (const source of follows) {
    if (source.aborted) controller.abort(source.reason);
    else source.addEventListener('abort', onAbort, { once: true });
  }
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    stop() {
      callOff();
      for (const source of follows) source.removeEventListener('abort', onAbort);
    },
  };
}

/** Requests in flight at once on one signal, each with its listener, before Node warns of a leak. */
const CONCURRENT_LISTENERS = 1500;

/**
 * For a signal every request of a client follows (timeoutSignal above), which the client owns:
 * each request in flight listens to it until it ends, so a program with eleven requests out at
 * once is no leak, and Node would print one all the same on the program's stderr. Not for a
 * signal of the caller's, nor the CLI's run-wide interrupt, whose warnings stay as Node gives them.
 */
export function allowConcurrentRequests(signal: AbortSignal): void {
  setMaxListeners(CONCURRENT_LISTENERS, signal);
}

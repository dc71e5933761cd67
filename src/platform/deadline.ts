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

/**
 * A signal that aborts (with a TimeoutError, as AbortSignal.timeout's) once `ms` have passed on
 * `clock`; `stop()` ends the wait when the work it bounds is over. On the run's clock, so that a
 * test's fake clock decides when a hung request times out, as it decides every other wait.
 */
export function timeoutSignal(clock: Pick<Clock, 'deadline'>, ms: number): { signal: AbortSignal; stop: () => void } {
  const expired = new AbortController();
  const stopped = new AbortController();
  clock.deadline(ms, stopped.signal).then(
    () => expired.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
    // Stopped: the work ended first.
    () => undefined,
  );
  return { signal: expired.signal, stop: () => stopped.abort(CALLED_OFF) };
}

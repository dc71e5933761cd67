// Time, as every wait of the CLI sees it: polls, backoff, Retry-After, lock waits, spinners. The
// process gets the real clock; tests pass a fake one (test/support/fake-clock.ts), so that a
// wait of minutes costs them nothing and what was waited can be asserted.

export interface Clock {
  /** Milliseconds since the epoch, as Date.now(). */
  now(): number;
  /** Resolves after `ms`; rejects with `signal.reason` as soon as the signal aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Like sleep, but for a deadline that bounds other work (--max-wait over a hung request), not a
   * pause: a fake clock lets it pass only when time is moved on, never by itself.
   */
  deadline(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Calls `fire` once `ms` have passed, as a deadline passes (a fake clock lets it pass only when
   * time is moved on), unless the returned function calls it off first; never keeps the process
   * alive. A deadline without a promise or a signal of its own, for one every request sets.
   */
  after(ms: number, fire: () => void): () => void;
  /** Calls `tick` every `ms` until the returned function is called; never keeps the process alive. */
  every(ms: number, tick: () => void): () => void;
}

function timeout(ms: number, signal: AbortSignal | undefined, unref: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    if (unref) timer.unref();
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => timeout(ms, signal, false),
  // A deadline never keeps the process alive by itself: the work it bounds does.
  deadline: (ms, signal) => timeout(ms, signal, true),
  after(ms, fire) {
    const timer = setTimeout(fire, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
  every(ms, tick) {
    const timer = setInterval(tick, ms);
    timer.unref();
    return () => clearInterval(timer);
  },
};

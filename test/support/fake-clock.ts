// A clock for tests: time moves only when the CLI sleeps (a pause ends at once, time jumps ahead)
// or when the test says so. Deadlines that bound other work (--max-wait over a hung request) never
// pass by themselves: the test moves time with advance() once the work is where it wants it.
import type { Clock } from '../../src/platform/clock.js';

export interface FakeClock extends Clock {
  /** Every pause the CLI took, in ms, in order. */
  readonly sleeps: number[];
  /** Virtual milliseconds since the clock was made. */
  elapsed(): number;
  /** Moves time on by `ms`: deadlines and ticks due by then fire. */
  advance(ms: number): Promise<void>;
  /**
   * Moves time on to the earliest pending deadline and fires it (with whatever else is due then):
   * what real time does to a request that hangs, which ends at its --timeout or at a --max-wait
   * that comes first. Nothing pending: time stays.
   */
  untilNextDeadline(): Promise<void>;
  /** Deadlines set and neither passed nor called off: once a run is over, any left is a leak. */
  pendingDeadlines(): number;
}

interface Timer {
  at: number;
  kind: 'sleep' | 'deadline';
  fire: () => void;
}

export function fakeClock(start: number = Date.now()): FakeClock {
  let now = start;
  const timers: Timer[] = [];
  const intervals = new Set<{ every: number; next: number; tick: () => void }>();
  const sleeps: number[] = [];
  let pumping = false;

  const moveTo = (to: number): void => {
    // A pause of 0 ms (Retry-After: 0) is due now: it fires without time moving.
    if (to < now) return;
    now = to;
    for (const timer of timers.filter((t) => t.at <= now).sort((a, b) => a.at - b.at)) {
      timers.splice(timers.indexOf(timer), 1);
      timer.fire();
    }
    for (const interval of intervals) {
      // Once per move, however many periods passed: a redraw, not a catch-up.
      if (interval.next <= now) {
        interval.next = now + interval.every;
        interval.tick();
      }
    }
  };

  // One pending pause at a time is ended, on a later turn of the event loop, so that whatever
  // else the CLI does meanwhile (real I/O) goes on in between.
  const pump = (): void => {
    if (pumping) return;
    pumping = true;
    setImmediate(() => {
      pumping = false;
      const next = timers.filter((t) => t.kind === 'sleep').sort((a, b) => a.at - b.at)[0];
      if (next === undefined) return;
      moveTo(next.at);
      if (timers.some((t) => t.kind === 'sleep')) pump();
    });
  };

  const wait = (ms: number, kind: Timer['kind'], signal: AbortSignal | undefined): Promise<void> =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const timer: Timer = {
        at: now + Math.max(0, ms),
        kind,
        fire: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = (): void => {
        const i = timers.indexOf(timer);
        if (i >= 0) timers.splice(i, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      timers.push(timer);
      if (kind === 'sleep') pump();
    });

  return {
    now: () => now,
    sleeps,
    elapsed: () => now - start,
    sleep(ms, signal) {
      sleeps.push(ms);
      return wait(ms, 'sleep', signal);
    },
    deadline: (ms, signal) => wait(ms, 'deadline', signal),
    after(ms, fire) {
      const timer: Timer = { at: now + Math.max(0, ms), kind: 'deadline', fire };
      timers.push(timer);
      return () => {
        const i = timers.indexOf(timer);
        if (i >= 0) timers.splice(i, 1);
      };
    },
    every(ms, tick) {
      const interval = { every: ms, next: now + ms, tick };
      intervals.add(interval);
      return () => intervals.delete(interval);
    },
    async advance(ms) {
      moveTo(now + ms);
      await new Promise((resolve) => setImmediate(resolve));
    },
    pendingDeadlines: () => timers.filter((t) => t.kind === 'deadline').length,
    async untilNextDeadline() {
      const next = timers.filter((t) => t.kind === 'deadline').sort((a, b) => a.at - b.at)[0];
      if (next !== undefined) moveTo(next.at);
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

/**
 * A fake clock that calls `onSleep` each time the CLI starts a pause (a poll interval, a lock
 * wait, a backoff), before that pause ends: with the pause (ms), its number (from 1) and the
 * clock. In this process that is the moment "the command has seen this answer and waits for the
 * next one": a change made there is what the next poll sees, an interrupt there ends the pause,
 * and acting there needs no wall-clock wait and no polling of the output.
 */
export function clockWatching(onSleep: (ms: number, n: number, clock: FakeClock) => void): FakeClock {
  const clock = fakeClock();
  const sleep = clock.sleep;
  let n = 0;
  clock.sleep = (ms, signal) => {
    const pause = sleep(ms, signal);
    onSleep(ms, ++n, clock);
    return pause;
  };
  return clock;
}

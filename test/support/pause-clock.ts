// A fake clock that lets a test act when the CLI starts a pause (a poll interval, a backoff):
// in this process that is the moment "the command has seen this answer and waits for the next
// one", so a test can move a job on, or interrupt, between two polls without waiting or polling.
import { fakeClock, type FakeClock } from './fake-clock.js';

/**
 * A fake clock (./fake-clock.ts) that calls `onSleep` each time the CLI starts a pause, before the
 * pause ends: with the pause (ms), its number (from 1) and the clock. A change made there is what
 * the next poll sees; an interrupt there ends the pause.
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

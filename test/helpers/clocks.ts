// Fake clocks that let a test act at a moment the CLI itself chooses: as it starts a pause (a poll
// interval, a lock wait, a backoff). In this process nothing else marks "the command is now
// waiting", and acting there needs no wall-clock wait and no polling of the output.
import { fakeClock, type FakeClock } from '../support/fake-clock.js';

/**
 * A fake clock (test/support/fake-clock.ts) that calls `onSleep` each time the CLI starts a pause,
 * before that pause ends: with the pause (ms), its number (from 1) and the clock. Interrupting
 * there interrupts the pause; releasing a lock there is what the next poll finds.
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

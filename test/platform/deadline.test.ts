// A deadline on the run's clock: withinDeadline bounds a piece of work, timeoutSignal bounds a
// request (the HTTP layer's --timeout). On a fake clock each passes only when time is moved on;
// once called off, it is gone from the clock.
import { describe, expect, it } from 'vitest';
import { realClock } from '../../src/platform/clock.js';
import { timeoutSignal, withinDeadline } from '../../src/platform/deadline.js';
import { fakeClock } from '../support/fake-clock.js';

describe('timeoutSignal', () => {
  it('aborts with a TimeoutError when its time has passed on the clock, not a moment before', async () => {
    const clock = fakeClock();
    const { signal } = timeoutSignal(clock, 300);
    await clock.advance(299);
    expect(signal.aborted).toBe(false);
    await clock.advance(1);
    expect(signal.aborted).toBe(true);
    expect((signal.reason as DOMException).name).toBe('TimeoutError');
    expect(clock.pendingDeadlines()).toBe(0);
  });

  it('stopped: called off on the clock, and never aborts', async () => {
    const clock = fakeClock();
    const { signal, stop } = timeoutSignal(clock, 300);
    expect(clock.pendingDeadlines()).toBe(1);
    stop();
    expect(clock.pendingDeadlines()).toBe(0);
    await clock.advance(10_000);
    expect(signal.aborted).toBe(false);
  });

  it('on the real clock: aborts with a TimeoutError', async () => {
    const { signal } = timeoutSignal(realClock, 5);
    const reason = await new Promise((resolve) => signal.addEventListener('abort', () => resolve(signal.reason), { once: true }));
    expect((reason as DOMException).name).toBe('TimeoutError');
  });
});

describe('withinDeadline', () => {
  it('gives up at the deadline on a work that never settles, and calls the deadline off when the work settles first', async () => {
    const clock = fakeClock();
    const never = withinDeadline(clock, clock.now() + 1000, new Promise<never>(() => undefined), () => new Error('gave up')).catch((error: Error) => error.message);
    const quick = withinDeadline(clock, clock.now() + 1000, Promise.resolve('done'), () => new Error('gave up'));
    await expect(quick).resolves.toBe('done');
    expect(clock.pendingDeadlines()).toBe(1);
    await clock.advance(1000);
    expect(await never).toBe('gave up');
    expect(clock.pendingDeadlines()).toBe(0);
  });
});

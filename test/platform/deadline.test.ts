// A deadline on the run's clock: withinDeadline bounds a piece of work, timeoutSignal bounds a
// request (the HTTP layer's --timeout). On a fake clock each passes only when time is moved on;
// once called off, it is gone from the clock.
import { getEventListeners } from 'node:events';
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

  it('follows other signals: aborted with the reason of the first to abort, already or later; not timed out', async () => {
    const clock = fakeClock();
    const first = new AbortController();
    const second = new AbortController();
    second.abort(new Error('second, already'));
    const already = timeoutSignal(clock, 300, [first.signal, second.signal]);
    expect((already.signal.reason as Error).message).toBe('second, already');
    already.stop();
    const later = timeoutSignal(clock, 300, [first.signal]);
    expect(later.signal.aborted).toBe(false);
    first.abort(new Error('first, later'));
    expect((later.signal.reason as Error).message).toBe('first, later');
    expect(later.timedOut()).toBe(false);
    later.stop();
    expect(clock.pendingDeadlines()).toBe(0);
  });

  it('stop() takes its listener off every signal it follows: a long-lived signal keeps nothing of each piece of work', () => {
    const clock = fakeClock();
    const run = new AbortController();
    for (let i = 0; i < 100; i++) {
      const work = timeoutSignal(clock, 300, [run.signal]);
      expect(getEventListeners(run.signal, 'abort')).toHaveLength(1);
      work.stop();
    }
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(0);
    expect(clock.pendingDeadlines()).toBe(0);
  });

  it('timed out: says so, and its reason is a TimeoutError even when it follows other signals', async () => {
    const clock = fakeClock();
    const run = new AbortController();
    const work = timeoutSignal(clock, 300, [run.signal]);
    await clock.untilNextDeadline();
    expect(work.timedOut()).toBe(true);
    expect((work.signal.reason as DOMException).name).toBe('TimeoutError');
    run.abort(new Error('too late'));
    expect((work.signal.reason as DOMException).name).toBe('TimeoutError');
    work.stop();
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

// Pure formatting for people: progress, counts, times, bars (src/text/format.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatElapsed,
  formatProgress,
  humanTime,
  percentDone,
  progressBar,
  relativeTime,
  rfc3339,
  toCount,
} from '../../src/text/format.js';

describe('formatProgress', () => {
  it('shows finished/total pages and the rounded percentage', () => {
    expect(formatProgress(37, 120)).toBe('37/120 pages (31%)');
    expect(formatProgress(0, 50)).toBe('0/50 pages (0%)');
    expect(formatProgress(42, 42)).toBe('42/42 pages (100%)');
  });

  it('never claims 100% before the last page is in', () => {
    expect(formatProgress(999, 1000)).toBe('999/1000 pages (99%)');
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000 }), fc.nat(), (total, n) => {
        const finished = n % total; // strictly below total
        expect(formatProgress(finished, total)).not.toContain('(100%)');
      }),
    );
  });

  it('copes with missing, zero and numeric-string counts from the server', () => {
    expect(formatProgress(undefined, undefined)).toBe('unknown');
    expect(formatProgress(5, 0)).toBe('5/0 pages');
    expect(formatProgress(5, undefined)).toBe('5/? pages');
    expect(formatProgress('7', '10')).toBe('7/10 pages (70%)');
    expect(formatProgress(undefined, 10)).toBe('0/10 pages (0%)');
  });
});

describe('toCount and percentDone', () => {
  it('accepts non-negative integers and digit strings only', () => {
    expect(toCount(3)).toBe(3);
    expect(toCount(3.9)).toBe(3);
    expect(toCount(' 12 ')).toBe(12);
    for (const bad of [-1, NaN, Infinity, '1e3', '-2', '', null, {}, true]) expect(toCount(bad)).toBeUndefined();
  });

  it('is a fraction clamped to [0, 1]', () => {
    expect(percentDone(30, 120)).toBe(0.25);
    expect(percentDone(200, 100)).toBe(1);
    expect(percentDone(5, 0)).toBe(0);
    expect(percentDone('x', 10)).toBe(0);
  });
});

describe('times', () => {
  const now = Date.parse('2026-11-21T12:00:00Z');

  it('gives relative hints in the past and the future', () => {
    expect(relativeTime('2026-11-21T11:59:30Z', now)).toBe('just now');
    expect(relativeTime('2026-11-21T11:59:00Z', now)).toBe('1 minute ago');
    expect(relativeTime('2026-11-21T09:00:00Z', now)).toBe('3 hours ago');
    expect(relativeTime('2026-11-19T12:00:00Z', now)).toBe('2 days ago');
    expect(relativeTime('2026-11-21T14:00:00Z', now)).toBe('in 2 hours');
    expect(relativeTime('2026-11-21T12:00:20Z', now)).toBe('in less than a minute');
    expect(relativeTime('yesterday', now)).toBeUndefined();
  });

  it('humanTime keeps the ISO value and appends the hint; unreadable values stay as they are', () => {
    expect(humanTime('2026-11-21T09:00:00Z', now)).toBe('2026-11-21T09:00:00Z (3 hours ago)');
    expect(humanTime('not a date', now)).toBe('not a date');
    expect(humanTime(undefined, now)).toBe('');
    expect(humanTime(12, now)).toBe('');
  });

  it('rfc3339 normalises to UTC and leaves unreadable values alone', () => {
    expect(rfc3339('2026-11-21T13:00:00+01:00')).toBe('2026-11-21T12:00:00Z');
    expect(rfc3339('2026-11-21T12:00:00.250Z')).toBe('2026-11-21T12:00:00.250Z');
    expect(rfc3339('soon')).toBe('soon');
    expect(rfc3339(null)).toBe('');
  });

  it('formatElapsed shows m:ss, then h:mm:ss', () => {
    expect(formatElapsed(0)).toBe('0:00');
    expect(formatElapsed(65_000)).toBe('1:05');
    expect(formatElapsed(3_723_000)).toBe('1:02:03');
    expect(formatElapsed(-5)).toBe('0:00');
  });
});

describe('progressBar', () => {
  it('is always exactly `width` cells, filled in proportion', () => {
    expect(progressBar(0.5, 10)).toBe('█████░░░░░');
    expect(progressBar(2, 4)).toBe('████');
    expect(progressBar(-1, 4)).toBe('░░░░');
    fc.assert(
      fc.property(fc.double({ min: -2, max: 2, noNaN: true }), fc.integer({ min: 1, max: 80 }), (f, w) => {
        expect([...progressBar(f, w)]).toHaveLength(w);
      }),
    );
  });
});


// Durations for --unused-for: number-unit pairs; months on the calendar; a bare m is ambiguous.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeCutoff, parseSpan, spanBefore } from '../../src/text/duration.js';

const at = (iso: string): number => Date.parse(iso);

describe('parseSpan', () => {
  it('reads every unit, and adds pairs up', () => {
    expect(parseSpan('45s')).toEqual({ span: { months: 0, ms: 45_000 } });
    expect(parseSpan('90min')).toEqual({ span: { months: 0, ms: 5_400_000 } });
    expect(parseSpan('6mo')).toEqual({ span: { months: 6, ms: 0 } });
    expect(parseSpan('1y6mo')).toEqual({ span: { months: 18, ms: 0 } });
    expect(parseSpan('1Y2D')).toEqual({ span: { months: 12, ms: 2 * 86_400_000 } });
  });

  it('a bare m anywhere is ambiguous; a duration of 0 is zero; what is no duration is invalid', () => {
    for (const text of ['6m', '1h30m', '1m1d']) expect(parseSpan(text), text).toEqual({ problem: 'ambiguous-m' });
    for (const text of ['0mo', '0s', '0d0h']) expect(parseSpan(text), text).toEqual({ problem: 'zero' });
    for (const text of ['', 'mo', '1month', '1.5y', '1 y', 'y1']) expect(parseSpan(text), text).toEqual({ problem: 'invalid' });
  });

  it('whatever it is given, it returns a span above zero or a problem, and never throws', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const parsed = parseSpan(text);
        if ('span' in parsed) expect(parsed.span.months > 0 || parsed.span.ms > 0).toBe(true);
      }),
    );
  });
});

describe('spanBefore and describeCutoff', () => {
  it('months are calendar months, clamped to the month\'s last day', () => {
    expect(new Date(spanBefore(at('2026-11-27T03:30:00Z'), { months: 6, ms: 0 })).toISOString()).toBe('2026-05-27T03:30:00.000Z');
    expect(new Date(spanBefore(at('2026-03-31T12:00:00Z'), { months: 1, ms: 0 })).toISOString()).toBe('2026-02-28T12:00:00.000Z');
    expect(new Date(spanBefore(at('2028-02-29T00:00:00Z'), { months: 12, ms: 0 })).toISOString()).toBe('2027-02-28T00:00:00.000Z');
    expect(new Date(spanBefore(at('2026-01-15T00:00:00Z'), { months: 1, ms: 86_400_000 })).toISOString()).toBe('2025-12-14T00:00:00.000Z');
  });

  it('a date for whole days, with the time (UTC) otherwise', () => {
    expect(describeCutoff(at('2026-05-27T03:30:00Z'), { months: 6, ms: 0 })).toBe('2026-05-27');
    expect(describeCutoff(at('2026-11-27T01:30:00Z'), { months: 0, ms: 7_200_000 })).toBe('2026-11-27 01:30 UTC');
  });
});

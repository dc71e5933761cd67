// The times of a listed key, read strictly (src/api/key-times.ts): an ISO 8601 date and time is a
// time; null or "" is never; anything else cannot be read, and is never taken for a time.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeListed, listedTime } from '../../src/api/key-times.js';

describe('listedTime', () => {
  it('an ISO 8601 date and time is a time; null or "" is never; anything else is unreadable', () => {
    expect(listedTime('2026-11-27T03:30:00Z')).toBe(Date.parse('2026-11-27T03:30:00Z'));
    expect(listedTime('2026-11-27T03:30:00.123+01:00')).toBe(Date.parse('2026-11-27T02:30:00.123Z'));
    expect(listedTime(null)).toBe('never');
    expect(listedTime('')).toBe('never');
    for (const value of [undefined, 0, 1764214200000, 'soon', '2026-11-27', 'Fri, 27 Nov 2026 03:30:00 GMT', '2026-13-45T99:99:00Z', {}]) {
      expect(listedTime(value), JSON.stringify(value)).toBe('unreadable');
    }
  });

  it('whatever it is given, a number it returns is a time Date.parse reads alike, and it never throws', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.date({ noInvalidDate: true }).map((d) => d.toISOString()), fc.anything()), (value) => {
        const t = listedTime(value);
        if (typeof t === 'number') expect(t).toBe(Date.parse(value as string));
      }),
    );
  });
});

describe('describeListed', () => {
  it('missing, or the value as JSON, cut to 40 characters', () => {
    expect(describeListed(undefined)).toBe('missing');
    expect(describeListed('soon')).toBe('"soon"');
    expect(describeListed(7)).toBe('7');
    expect(describeListed('x'.repeat(100))).toHaveLength(40);
  });
});

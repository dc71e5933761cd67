
// Inside a property, node's assert: the checks expect makes, without what vitest's expect adds to
// every call (its state, copied each time), paid hundreds of times a property.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffDelay, MAX_ATTEMPTS, parseRetryAfter, RETRY_STATUSES } from '../../src/http/retry.js';
import { anyString } from '../support/arbitraries.js';

describe('backoffDelay', () => {
  it('doubles per attempt, with jitter in the upper half', () => {
    expect(backoffDelay(1, () => 0)).toBe(125);
    expect(backoffDelay(1, () => 1)).toBe(250);
    expect(backoffDelay(2, () => 0)).toBe(250);
    expect(backoffDelay(3, () => 1)).toBe(1000);
  });

  it('is capped at 8 s however many attempts', () => {
    expect(backoffDelay(30, () => 1)).toBe(8000);
    expect(backoffDelay(30, () => 0)).toBe(4000);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-21T12:00:00Z');

  it('reads delta-seconds, whole or decimal', () => {
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('1.5', now)).toBe(1500);
    expect(parseRetryAfter(['2', '9'], now)).toBe(2000);
  });

  it('reads an HTTP date, and a past date means now', () => {
    expect(parseRetryAfter('Sat, 21 Nov 2026 12:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 11:00:00 GMT', now)).toBe(0);
  });

  it('ignores what it cannot read', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-1', now)).toBeUndefined();
    expect(parseRetryAfter([], now)).toBeUndefined();
  });
});

describe('what is retried', () => {
  it('retries 429 and gateway/unavailable errors, never client errors', () => {
    for (const s of [429, 502, 503, 504]) expect(RETRY_STATUSES.has(s)).toBe(true);
    for (const s of [400, 401, 403, 404, 409]) expect(RETRY_STATUSES.has(s)).toBe(false);
    expect(MAX_ATTEMPTS).toBeGreaterThan(1);
  });
});

describe('any header', () => {

  describe('parseRetryAfter', () => {
    const now = Date.parse('2026-11-21T12:00:00Z');

    it('gives a finite wait of 0 or more, or undefined, whatever the header holds', () => {
      const header = fc.oneof(
        anyString(),
        fc.stringMatching(/^\s*\d{1,20}(\.\d{1,5})?\s*$/),
        fc.integer({ min: 300, max: 400 }).map((n) => '9'.repeat(n)),
        fc.date({ noInvalidDate: true }).map((d) => d.toUTCString()),
        fc.array(fc.string()),
        fc.constant(undefined),
      );
      fc.assert(
        fc.property(header, (value) => {
          const ms = parseRetryAfter(value, now);
          if (ms === undefined) return;
          assert.ok(Number.isFinite(ms), `expected ${ms} to be finite`);
          assert.ok(ms >= 0, `expected ${ms} to be at least 0`);
        }),
        { numRuns: 500 },
      );
    });

    it('reads whole seconds and HTTP dates exactly', () => {
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 10_000_000 }), (s) => {
          assert.equal(parseRetryAfter(String(s), now), s * 1000);
          assert.equal(parseRetryAfter(new Date(now + s * 1000).toUTCString(), now), s * 1000);
        }),
      );
    });
  });
});

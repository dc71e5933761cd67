// The wait of a job watch after a transient failure.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { failureWait } from '../../src/api/watch.js';
import { HttpStatusError } from '../../src/http/errors.js';

describe('job watch: the wait after a transient failure', () => {
  it('is never shorter than --interval or the Retry-After asked for, and never longer than 30 s', () => {
    const retryAfter = fc.option(fc.integer({ min: 0, max: 10_000_000 }), { nil: undefined });
    fc.assert(
      fc.property(retryAfter, fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: 86_400_000 }), (asked, failures, interval) => {
        const error = new HttpStatusError('GET x failed: HTTP 429', 429, undefined, undefined, asked);
        const wait = failureWait(error, failures, interval);
        expect(wait).toBeLessThanOrEqual(30_000);
        expect(wait).toBeGreaterThanOrEqual(Math.min(30_000, interval));
        expect(wait).toBeGreaterThanOrEqual(Math.min(30_000, asked ?? 0));
      }),
    );
  });
});

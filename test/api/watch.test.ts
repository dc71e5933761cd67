// The wait of a job watch after a transient failure; what it waits out; its code when it gives up.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { failureWait, gaveUpCode, isTransient } from '../../src/api/watch.js';
import type { Job } from '../../src/api/model.js';
import { CrawlError } from '../../src/errors.js';
import { HttpStatusError, NetworkError } from '../../src/http/errors.js';

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

describe('job watch: what it waits out', () => {
  it('the network, 429 and 5xx, but not a TLS failure, 404 or 401', () => {
    expect(isTransient(new NetworkError('connection refused: GET x', false))).toBe(true);
    expect(isTransient(new NetworkError('timed out', true, undefined, true))).toBe(true);
    expect(isTransient(new NetworkError('TLS error (CERT_HAS_EXPIRED): GET x', false, undefined, false, true))).toBe(false);
    expect(isTransient(new HttpStatusError('HTTP 503', 503, undefined))).toBe(true);
    expect(isTransient(new HttpStatusError('HTTP 429', 429, undefined))).toBe(true);
    expect(isTransient(new HttpStatusError('HTTP 404', 404, undefined))).toBe(false);
    expect(isTransient(new HttpStatusError('HTTP 401', 401, undefined))).toBe(false);
  });
});

describe('job watch: the code when --max-wait runs out', () => {
  const job = { id: 'j', status: 'running' } as Job;
  it('7 once the job was read, whatever failed after', () => {
    expect(gaveUpCode(job, undefined)).toBe(7);
    expect(gaveUpCode(job, new NetworkError('connection refused', false))).toBe(7);
  });

  it('never read: the last failure\'s own code, or the network\'s when no attempt was answered', () => {
    expect(gaveUpCode(undefined, new NetworkError('connection refused', false))).toBe(5);
    expect(gaveUpCode(undefined, new HttpStatusError('HTTP 503', 503, undefined))).toBe(1);
    expect(gaveUpCode(undefined, new HttpStatusError('HTTP 429', 429, undefined))).toBe(6);
    expect(gaveUpCode(undefined, undefined)).toBe(5);
    expect(gaveUpCode(undefined, new CrawlError('x', 1))).toBe(1);
  });
});

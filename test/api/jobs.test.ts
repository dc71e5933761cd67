// parseJobBody (GET /api/crawl/:id): any body gives a job or a CrawlError, nothing else.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJobBody } from '../../src/api/jobs.js';
import { outcome } from '../support/arbitraries.js';

const jobLike = fc.record(
  {
    success: fc.anything(),
    job: fc.oneof(
      fc.anything(),
      fc.record(
        { id: fc.anything(), status: fc.oneof(fc.string(), fc.anything()), pagesTotal: fc.anything(), errorMessage: fc.anything() },
        { requiredKeys: [] },
      ),
      fc.dictionary(fc.string(), fc.jsonValue()),
    ),
    pages: fc.anything(),
  },
  { requiredKeys: [] },
);

describe('parseJobBody (GET /api/crawl/:id)', () => {
  it('returns a job with a string id and status, or throws a CrawlError (exit 1)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything(), jobLike, fc.json().map((t) => JSON.parse(t) as unknown)), (body) => {
        const result = outcome(() => parseJobBody(body, 'raw', 'fallback-id', 'GET /api/crawl/x'));
        if ('error' in result) {
          expect(result.error.exitCode).toBe(1);
          expect(result.error.message).toMatch(/^malformed response to GET \/api\/crawl\/x: /);
          return;
        }
        expect(typeof result.value.job.id).toBe('string');
        expect(typeof result.value.job.status).toBe('string');
        expect(result.value.pages === undefined || Array.isArray(result.value.pages)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('accepts any status string and passes unknown fields through untouched', () => {
    const extra = fc.dictionary(fc.string().filter((k) => k !== 'id' && k !== 'status' && k !== '__proto__'), fc.jsonValue());
    fc.assert(
      fc.property(fc.string(), extra, (status, fields) => {
        const body = { success: true, job: { ...fields, status }, pages: null };
        const { job } = parseJobBody(body, '', 'the-id', 'GET x');
        expect(job.status).toBe(status);
        for (const [name, value] of Object.entries(fields)) expect(job[name]).toEqual(value);
      }),
    );
  });
});

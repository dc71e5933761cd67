// parseJobBody (GET /api/crawl/:id): any body gives a job or a CrawlError, nothing else.
// Inside a property, node's assert: the checks expect makes, without what vitest's expect adds to
// every call (its state, copied each time), paid hundreds of times a property.
import assert from 'node:assert/strict';
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
          assert.equal(result.error.exitCode, 1);
          assert.match(result.error.message, /^malformed response to GET \/api\/crawl\/x: /);
          return;
        }
        assert.equal(typeof result.value.job.id, 'string');
        assert.equal(typeof result.value.job.status, 'string');
        assert.ok(result.value.pages === undefined || Array.isArray(result.value.pages), 'pages: undefined or an array');
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
        assert.equal(job.status, status);
        for (const [name, value] of Object.entries(fields)) expect(job[name]).toEqual(value);
      }),
    );
  });
});

// Everything that reads what a server (or a config file) sent takes any input at all: it returns,
// or it throws the project's own CrawlError with its exit code, never a TypeError that would reach
// the user as "unexpected error". And what it returns keeps its promises (no control characters in
// a message, a finite wait, unknown fields passed through).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJobBody } from '../../src/api/jobs.js';
import { parseBatch, parseNext } from '../../src/api/pages.js';
import type { HttpResponse } from '../../src/http/client.js';
import { arrayElements, scanDocument, type JsonSpan } from '../../src/text/json-scan.js';
import { failureWait } from '../../src/api/watch.js';
import { parseConfig } from '../../src/config/store.js';
import { CrawlError } from '../../src/errors.js';
import { serverMessage } from '../../src/http/error-body.js';
import { HttpStatusError } from '../../src/http/errors.js';
import { parseRetryAfter } from '../../src/http/retry.js';
import { anyString } from '../support/arbitraries.js';

const DANGEROUS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** Runs `fn`; a CrawlError is an answer too, anything else thrown fails the property. */
function outcome<T>(fn: () => T): { value: T } | { error: CrawlError } {
  try {
    return { value: fn() };
  } catch (error) {
    if (error instanceof CrawlError) return { error };
    throw error;
  }
}

/** Any text, JSON of any shape, and JSON shaped almost like what the parsers expect. */
const anyText = fc.oneof(anyString(), fc.json(), fc.string({ unit: 'binary-ascii', maxLength: 400 }));
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

describe('serverMessage (error bodies)', () => {
  const contentType = fc.option(fc.oneof(fc.constantFrom('application/json', 'text/html; charset=utf-8', 'text/plain', 'application/problem+json'), fc.string()), { nil: undefined });
  const htmlish = fc.tuple(anyString(), anyString()).map(([a, b]) => `<!DOCTYPE html><html><head><title>${a}</title></head><body><h1>${b}</h1>`);

  it('takes any body and content type, and gives one clean line of at most 300 characters or nothing', () => {
    fc.assert(
      fc.property(fc.oneof(anyText, htmlish, fc.anything().map((v) => JSON.stringify(v) ?? '')), contentType, (body, type) => {
        const message = serverMessage(body, type);
        if (message === undefined) return;
        expect(message.length).toBeGreaterThan(0);
        expect(message.length).toBeLessThanOrEqual(300);
        expect(message).not.toMatch(DANGEROUS);
        expect(message).toBe(message.trim());
      }),
      { numRuns: 300 },
    );
  });

  it('takes bodies nested any depth (a recursive walk would overflow the stack thousands deep)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 30_000 }), fc.constantFrom('{"error":', '{"errors":[', '['), (depth, open) => {
        const close = open === '{"error":' ? '}' : open === '[' ? ']' : ']}';
        const body = open.repeat(depth) + '"deep"' + close.repeat(depth);
        const message = serverMessage(body, 'application/json');
        expect(message === undefined || message === 'deep').toBe(true);
      }),
      { numRuns: 20 },
    );
  });

  it('finds the message in {error}, {error:{message}} and {errors:[{message}]} alike', () => {
    const printable = fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 300 });
    fc.assert(
      fc.property(printable, fc.integer({ min: 0, max: 2 }), (text, shape) => {
        const body = [{ error: text }, { error: { message: text } }, { errors: [{ message: text }] }][shape];
        expect(serverMessage(JSON.stringify(body), 'application/json')).toBe(text);
      }),
    );
  });
});

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

describe('pages batches (GET /api/crawl/:id/pages)', () => {
  const asResponse = (text: string): HttpResponse => ({ status: 200, url: new URL('http://x/api/crawl/j/pages'), headers: {}, text });
  /** What the records of a body are by the contract's rules, read the old way (parsed). */
  const expectedRecords = (body: unknown): unknown[] | undefined => {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
    const b = body as Record<string, unknown>;
    if (Array.isArray(b.pages)) return b.pages;
    if (Array.isArray(b.data)) return b.data;
    return undefined;
  };

  it('parseBatch takes any text: records as the rules say, each element the JSON it was; or a CrawlError (exit 1)', () => {
    const batchLike = fc.record(
      { pages: fc.anything(), data: fc.anything(), next: fc.anything(), nextCursor: fc.anything() },
      { requiredKeys: [] },
    );
    const text = fc.oneof(
      anyText,
      fc.oneof(fc.anything(), batchLike).map((v) => JSON.stringify(v) ?? ''),
      // Pretty-printed, so records span lines.
      batchLike.map((v) => JSON.stringify(v, null, 2)),
    );
    fc.assert(
      fc.property(text, (body) => {
        const result = outcome(() => parseBatch(asResponse(body), 'GET /pages'));
        let parsed: unknown;
        let valid = true;
        try {
          parsed = JSON.parse(body);
        } catch {
          valid = false;
        }
        const expected = valid ? expectedRecords(parsed) : undefined;
        if ('error' in result) {
          expect(result.error.exitCode).toBe(1);
          // Only what the rules reject is rejected (a bad `next` aside).
          if (expected !== undefined) expect(result.error.message).toMatch(/next page/);
          return;
        }
        expect(expected).toBeDefined();
        const { records } = result.value;
        expect(records.count).toBe(expected?.length);
        const elements = [...arrayElements(body, records)].map((span) => JSON.parse(body.slice(span.start, span.end)) as unknown);
        expect(elements).toEqual(expected);
        const next = result.value.next;
        if (next) expect(next.kind === 'link' ? next.url : next.cursor).not.toBe('');
      }),
      { numRuns: 300 },
    );
  });

  it('parseNext: a path or an http(s) URL is a link, any other string a cursor, a number its own digits', () => {
    const spanOf = (text: string): JsonSpan => scanDocument(text);
    // Links are a path or http(s):// in any case, then anything at all (quotes, backslashes and
    // controls included, which JSON must carry); near misses are cursors. Not fast-check's webUrl
    // and webPath: their percent-encoded characters build a 1.1 million entry table on first use
    // (1.3 s, in every worker that runs this file), and the rule looks at the start alone.
    const link = fc.oneof(
      fc.tuple(fc.constantFrom('http://', 'https://', 'HTTP://', 'hTTps://'), anyString()).map(([scheme, rest]) => scheme + rest),
      anyString().map((rest) => `/${rest}`),
    );
    const nearLink = fc.tuple(fc.constantFrom('http:/', 'https:', 'http//', 'ftp://', ' http://', 'httpx://', '\\/'), anyString()).map(([start, rest]) => start + rest);
    fc.assert(
      fc.property(fc.oneof(fc.string({ minLength: 1 }), link, nearLink), (raw) => {
        const text = JSON.stringify(raw);
        const next = parseNext(text, spanOf(text), 'GET /pages');
        const link = raw.startsWith('/') || /^https?:\/\//i.test(raw);
        expect(next).toEqual(link ? { kind: 'link', url: raw } : { kind: 'cursor', cursor: raw });
      }),
    );
    // Numbers: the token exactly as sent, however large or however written.
    const numbers = fc.oneof(
      fc.bigInt({ min: -(2n ** 200n), max: 2n ** 200n }).map(String),
      fc.tuple(fc.integer(), fc.nat(), fc.integer({ min: -400, max: 400 })).map(([i, f, e]) => `${i}.${f}e${e}`),
      fc.constantFrom('-0', '1.0', '1e400', '1e-400', '9007199254740993', '0.10'),
    );
    fc.assert(
      fc.property(numbers, (token) => {
        expect(parseNext(token, spanOf(token), 'GET /pages')).toEqual({ kind: 'cursor', cursor: token });
      }),
    );
  });
});

describe('parseConfig (config.json)', () => {
  it('returns profiles of string settings, or throws a CrawlError naming the file (exit 1)', () => {
    const configLike = fc
      .record({ profiles: fc.oneof(fc.anything(), fc.dictionary(fc.string(), fc.oneof(fc.anything(), fc.dictionary(fc.constantFrom('base-url', 'api-key', 'x'), fc.anything())))) }, { requiredKeys: [] })
      .map((v) => JSON.stringify(v));
    fc.assert(
      fc.property(fc.oneof(anyText, configLike), (text) => {
        const result = outcome(() => parseConfig(text, '/cfg/config.json'));
        if ('error' in result) {
          expect(result.error.exitCode).toBe(1);
          expect(result.error.message).toContain('/cfg/config.json');
          return;
        }
        for (const profile of Object.values(result.value.profiles)) {
          for (const value of Object.values(profile)) expect(typeof value).toBe('string');
        }
      }),
      { numRuns: 300 },
    );
  });
});

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
        expect(Number.isFinite(ms)).toBe(true);
        expect(ms).toBeGreaterThanOrEqual(0);
      }),
      { numRuns: 500 },
    );
  });

  it('reads whole seconds and HTTP dates exactly', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), (s) => {
        expect(parseRetryAfter(String(s), now)).toBe(s * 1000);
        expect(parseRetryAfter(new Date(now + s * 1000).toUTCString(), now)).toBe(s * 1000);
      }),
    );
  });
});

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

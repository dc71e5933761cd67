// A pages batch (GET /api/crawl/:id/pages) of any shape at all is read or refused with the
// project's own CrawlError and its exit code, never a TypeError that would reach the user as
// "unexpected error"; what it returns keeps its promises (records as sent, unknown fields passed
// through). The other readers of what a server or a config file sent have the same property
// tests beside their modules (api/jobs, http/error-body, http/retry, config/store, api/watch).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseBatch, parseNext } from '../../src/api/pages.js';
import type { HttpResponse } from '../../src/http/client.js';
import { arrayElements, scanDocument, type JsonSpan } from '../../src/text/json-scan.js';
import { anyString, anyText, outcome } from '../support/arbitraries.js';

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


// `job pages` against every tolerated shape of GET /api/crawl/:id/pages: the sandbox's variants
// (records in pages/data, next/nextCursor, as a cursor, a path or an absolute URL), and a small
// server for what the sandbox never does: a link to another origin, a looping next, records
// that are not an array, a body that is not JSON.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ndjson, runCli, tempDir } from '../../support/harness.js';
import { startPagesServer, type PagesServer, type ScriptedJob } from '../../support/pages-server.js';
import { sandboxFixture, type SandboxFixture } from '../../support/sandbox.js';
import type { PagesShape } from '../../../src/sandbox/index.js';

let fx: SandboxFixture;
beforeAll(async () => {
  fx = await sandboxFixture();
});
afterAll(() => fx.close());

function pageNumbers(text: string): number[] {
  return ndjson(text).map((record) => Number(/\/page\/(\d+)$/.exec((record as { url: string }).url)?.[1]));
}

function range(first: number, last: number): number[] {
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}

const SHAPES: Array<Required<PagesShape>> = [];
for (const records of ['pages', 'data'] as const) {
  for (const next of ['next', 'nextCursor'] as const) {
    for (const link of ['cursor', 'path', 'url'] as const) SHAPES.push({ records, next, link });
  }
}

describe('the sandbox\'s shapes', () => {
  // Three batches, two of them reached through the server's links: a service that pages in
  // batches of 100 whatever the limit asked, as one may (a job of more than 100 pages has none
  // inline, so every page comes through /pages).
  it.concurrent.for(SHAPES)('records in $records, $next as a $link: 250 pages in batches of 100, in order, once', async (shape, { expect }) => {
    const id = `shape-${shape.records}-${shape.next}-${shape.link}`;
    fx.sandbox.addJob({ id, status: 'completed', pagesTotal: 250, pagesShape: shape, pagesPerBatch: 100 });
    const r = await runCli(['job', 'pages', id], { env: fx.env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(pageNumbers(r.stdout)).toEqual(range(1, 250));
    const requests = fx.sandbox.requests.filter((q) => q.url.startsWith(`/api/crawl/${id}/pages`));
    expect(requests).toHaveLength(3);
    // Every batch, including those named by the server's links, carried the key and the page size.
    expect(requests.every((q) => q.authorized)).toBe(true);
    expect(requests.every((q) => new URL(q.url, 'http://x').searchParams.get('limit') === '1000')).toBe(true);
  });
});

interface Seen {
  host: string;
  url: string;
  authorization: string | undefined;
}

/** A service whose /pages answers are scripted per job id; GET of the job says completed, 500 pages. */
async function scriptedServer(
  pages: (id: string, query: URLSearchParams, origin: string) => { status?: number; body: string },
): Promise<{ url: string; origin: string; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  let origin = '';
  const server = createServer((req: IncomingMessage, res) => {
    seen.push({ host: req.headers.host ?? '', url: req.url ?? '', authorization: req.headers.authorization });
    const url = new URL(req.url ?? '/', 'http://x');
    const match = /^\/api\/crawl\/([^/]+)(\/pages)?$/.exec(url.pathname);
    if (!match) {
      res.writeHead(404).end();
      return;
    }
    const id = decodeURIComponent(match[1] as string);
    if (!match[2]) {
      // 'short-inline': a small completed job whose inline array lacks pages; 'number-cursor' has 5.
      const total = id === 'short-inline' ? 50 : id === 'number-cursor' ? 5 : 500;
      const job = { id, url: 'https://example.com/', status: 'completed', pagesTotal: total, pagesFinished: total, creditsUsed: total, createdAt: '2026-01-01T00:00:00Z' };
      const inline = id === 'short-inline' ? records(1, 10) : null;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ success: true, job, pages: inline }));
      return;
    }
    const answer = pages(id, url.searchParams, origin);
    res.writeHead(answer.status ?? 200, { 'content-type': 'application/json' }).end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${port}`;
  return { url: origin, origin, seen, server };
}

function records(first: number, count: number): Array<{ url: string; title: string }> {
  return Array.from({ length: count }, (_, i) => ({ url: `https://example.com/page/${first + i}`, title: `Page ${first + i}` }));
}

describe('shapes the sandbox lacks', () => {
  let svc: Awaited<ReturnType<typeof scriptedServer>>;
  let configDir: { dir: string; cleanup: () => void };
  const KEY = 'crk_scripted_service_key_0123456789';
  beforeAll(async () => {
    configDir = tempDir();
    svc = await scriptedServer((id, query, origin) => {
      const cursor = query.get('cursor');
      const port = new URL(origin).port;
      switch (id) {
        case 'other-origin':
          // Same machine, another origin: the key must not go there, and the link is refused.
          return { body: JSON.stringify({ pages: records(1, 10), next: `http://localhost:${port}/api/crawl/other-origin/pages?cursor=2` }) };
        case 'loop':
          return { body: JSON.stringify({ pages: records(cursor === null ? 1 : 11, 10), next: 'AAA' }) };
        case 'object':
          return { body: JSON.stringify({ pages: { '0': records(1, 1)[0] }, next: null }) };
        case 'no-records':
          return { body: JSON.stringify({ success: true, items: [] }) };
        case 'not-json':
          return { body: cursor === null ? JSON.stringify({ data: records(1, 5), nextCursor: 'c2' }) : '<html>oops</html>' };
        case 'number-cursor':
          // A numeric cursor, and the end told by leaving `next` out.
          if (cursor === null) return { body: JSON.stringify({ data: records(1, 3), next: 2 }) };
          return { body: JSON.stringify({ data: records(4, 2) }) };
        default:
          return { status: 404, body: '{"error":"no such job"}' };
      }
    });
  });
  afterAll(async () => {
    svc.server.closeAllConnections();
    await new Promise((resolve) => svc.server.close(resolve));
    configDir.cleanup();
  });
  const env = (): Record<string, string> => ({ CRAWL_BASE_URL: svc.url, CRAWL_API_KEY: KEY, CRAWL_CONFIG_DIR: configDir.dir });

  it('a next link on another origin is refused, after the records so far, and gets no key', async () => {
    const r = await runCli(['job', 'pages', 'other-origin'], { env: env() });
    expect(r.code).toBe(1);
    expect(pageNumbers(r.stdout)).toEqual(range(1, 10));
    expect(r.stderr).toBe(
      `crawl: refusing to follow the next page link to another origin (http://localhost:${new URL(svc.url).port}); ` +
        `the service is ${svc.origin} (wrote 10 records before the failure)\n`,
    );
    expect(svc.seen.some((s) => s.host.startsWith('localhost'))).toBe(false);
  });

  it('the same next twice: malformed, exit 1, the records so far kept', async () => {
    const r = await runCli(['job', 'pages', 'loop'], { env: env() });
    expect(r.code).toBe(1);
    expect(pageNumbers(r.stdout)).toEqual(range(1, 20));
    expect(r.stderr).toBe(
      'crawl: malformed response to GET /api/crawl/loop/pages: the service sent the same next page twice (cursor "AAA"); ' +
        'stopping to avoid a loop (wrote 20 records before the failure)\n',
    );
  });

  it('records that are not an array, or absent: malformed, exit 1', async () => {
    const object = await runCli(['job', 'pages', 'object'], { env: env() });
    expect(object.code).toBe(1);
    expect(object.stdout).toBe('');
    expect(object.stderr).toMatch(/^crawl: malformed response to GET \/api\/crawl\/object\/pages: "pages" is an object, not an array/);
    const none = await runCli(['job', 'pages', 'no-records'], { env: env() });
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/: no "pages" or "data" array \(wrote 0 records before the failure\)\n$/);
  });

  it('a batch that is not JSON after a good one: exit 1, the good one kept', async () => {
    const r = await runCli(['job', 'pages', 'not-json'], { env: env() });
    expect(r.code).toBe(1);
    expect(pageNumbers(r.stdout)).toEqual(range(1, 5));
    expect(r.stderr).toMatch(/^crawl: malformed response to GET \/api\/crawl\/not-json\/pages: the body is not valid JSON/);
    // The opaque cursor went back as `cursor`, with the page size.
    expect(svc.seen.some((s) => s.url === '/api/crawl/not-json/pages?cursor=c2&limit=1000')).toBe(true);
  });

  it('an inline array shorter than pagesTotal: written, with a warning on stderr', async () => {
    const r = await runCli(['job', 'pages', 'short-inline'], { env: env() });
    expect(r.code).toBe(0);
    expect(pageNumbers(r.stdout)).toEqual(range(1, 10));
    expect(r.stderr).toBe("crawl: warning: the service sent 10 of the job's 50 pages inline\n");
  });

  it('a numeric cursor, and the end told by an absent next', async () => {
    const r = await runCli(['job', 'pages', 'number-cursor'], { env: env() });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(pageNumbers(r.stdout)).toEqual(range(1, 5));
    expect(svc.seen.filter((s) => s.url.startsWith('/api/crawl/number-cursor/pages'))).toHaveLength(2);
    expect(svc.seen.every((s) => s.authorization === `Bearer ${KEY}`)).toBe(true);
  });
});

describe('batches that end short of the job\'s count', () => {
  /** A job of `status` whose pagesTotal is `total` (as JSON text; undefined: none) and whose pages end after one record. */
  const oneRecord = (id: string, status: string, total: string | undefined): ScriptedJob => ({
    job: () => ({ body: `{"success":true,"job":{"id":"${id}","status":"${status}"${total === undefined ? '' : `,"pagesTotal":${total}`}},"pages":null}` }),
    pages: () => ({ body: '{"pages":[{"a":1}],"next":null}' }),
  });
  const CASES: Array<[string, string, string | undefined]> = [
    ['short', 'completed', '250'],
    ['short-thousands', 'completed', '2500'],
    ['short-errored', 'errored', '250'],
    ['short-cancelled', 'cancelled_by_user', '250'],
    ['short-no-count', 'completed', undefined],
    ['short-word-count', 'completed', '"lots"'],
    ['short-absurd-count', 'completed', '1e300'],
  ];
  let short: PagesServer;
  beforeAll(async () => {
    short = await startPagesServer(Object.fromEntries(CASES.map(([id, status, total]) => [id, oneRecord(id, status, total)])));
  });
  afterAll(() => short.close());

  it.concurrent.for([
    ['no flag', []],
    ['--json', ['--json']],
    ['--limit 100', ['--limit', '100']],
  ] as const)('a completed job: the record written, a warning on stderr, exit 0 (%s)', async ([, flags], { expect }) => {
    const r = await runCli(['job', 'pages', 'short', ...flags], { env: short.env });
    expect(r.code).toBe(0);
    expect(ndjson(r.stdout)).toEqual([{ a: 1 }]);
    expect(r.stderr).toBe("crawl: warning: the service's pages ended after 1 of the job's 250 pages\n");
  });

  it.concurrent('--output on a terminal: the warning after the progress line, which it leaves whole', async ({ expect }) => {
    const out = tempDir('crawl-short-');
    try {
      const file = `${out.dir}/short.ndjson`;
      const r = await runCli(['job', 'pages', 'short', '--output', file], { env: short.env, tty: true });
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/Wrote \S+short\.ndjson: 1\/250 records \(0%\)\r?\n(\u001b\[\?25h)?crawl: warning: the service's pages ended after 1 of the job's 250 pages\r?\n$/);
    } finally {
      out.cleanup();
    }
  });

  it.concurrent('counts in the locale\'s grouping, as the inline warning has them', async ({ expect }) => {
    const r = await runCli(['job', 'pages', 'short-thousands'], { env: { ...short.env, LANG: 'de_DE.UTF-8' } });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("crawl: warning: the service's pages ended after 1 of the job's 2.500 pages\n");
  });

  it.concurrent.for([
    ['--limit 1 explains it', 'short', ['--limit', '1']],
    ['errored: the pages it has', 'short-errored', []],
    ['cancelled: the pages it has', 'short-cancelled', []],
    ['no pagesTotal', 'short-no-count', []],
    ['a pagesTotal that is no number', 'short-word-count', []],
    ['a pagesTotal beyond any count', 'short-absurd-count', []],
  ] as const)('nothing said: %s', async ([, id, flags], { expect }) => {
    const r = await runCli(['job', 'pages', id, ...flags], { env: short.env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(ndjson(r.stdout)).toEqual([{ a: 1 }]);
  });
});

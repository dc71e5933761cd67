// Pagination the service gets wrong: batches that make no progress (empty ones with
// ever new cursors or links, the same records again under new links, cycles of batches) stop the
// export with exit 1, the records before kept and counted, nothing written twice; and next links
// outside the job's own pages endpoint are refused before any request is sent to them.
import { afterAll, beforeAll, describe, it } from 'vitest';
import { ndjson, runCli } from '../../support/harness.js';
import { completedJob, records, startPagesServer, type PagesServer, type ScriptedJob } from '../../support/pages-server.js';

/** Page numbers of NDJSON records from records(). */
function pageNumbers(text: string): number[] {
  return ndjson(text).map((r) => Number(/\/page\/(\d+)$/.exec((r as { url: string }).url)?.[1]));
}

function range(first: number, last: number): number[] {
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}

const batch = (recs: string, next: unknown): { body: string } => ({ body: `{"pages":[${recs}],"next":${JSON.stringify(next)}}` });
/** The n-th request's number, from a cursor the script itself issued ("c<n>"). */
const step = (query: URLSearchParams): number => Number(query.get('cursor')?.slice(1) ?? 0);

const JOBS: Record<string, ScriptedJob> = {
  // 20 records, then empty batches for ever, each with a new cursor.
  'empty-cursors': { pages: (q) => (step(q) === 0 ? batch(records(1, 20), 'c1') : batch('', `c${step(q) + 1}`)) },
  // The same, with new links instead of cursors.
  'empty-links': {
    pages: (q) => (step(q) === 0 ? batch(records(1, 5), '/api/crawl/empty-links/pages?cursor=c1') : batch('', `/api/crawl/empty-links/pages?cursor=c${step(q) + 1}`)),
  },
  // A few empty batches, then records again: no false alarm.
  'some-empty': {
    job: () => completedJob('some-empty', 40),
    pages: (q) => {
      const n = step(q);
      if (n < 3) return batch(n === 0 ? records(1, 10) : '', `c${n + 1}`);
      return batch(records(11 + (n - 3) * 10, 10), n < 5 ? `c${n + 1}` : null);
    },
  },
  // The same batch again and again, under a new link each time.
  'same-batch': { pages: (q) => batch(records(1, 30), `/api/crawl/same-batch/pages?cursor=c${step(q) + 1}`) },
  // A cycle of two batches: A, B, A, B, ... with ever new cursors.
  'cycle-two': { pages: (q) => batch(step(q) % 2 === 0 ? records(1, 10) : records(11, 10), `c${step(q) + 1}`) },
  // A cycle of three, pretty-printed differently each round: the records' text is the same.
  'cycle-three': { pages: (q) => batch(records(1 + (step(q) % 3) * 7, 7), `c${step(q) + 1}`) },
  // Many distinct batches: nothing is taken for a loop.
  distinct: { job: () => completedJob('distinct', 600), pages: (q) => batch(records(1 + step(q) * 3, 3), step(q) < 199 ? `c${step(q) + 1}` : null) },
};

let svc: PagesServer;
let based: PagesServer;
beforeAll(async () => {
  svc = await startPagesServer(JOBS);
  based = await startPagesServer(LINK_JOBS, { basePath: '/v1' });
});
afterAll(async () => {
  await svc.close();
  await based.close();
});

function requestsFor(server: PagesServer, id: string): string[] {
  return server.seen.map((s) => s.url).filter((u) => u.includes(`/crawl/${id}/`));
}

describe('pagination without progress stops, with exit 1 and the records so far', () => {
  it.concurrent('empty batches with ever new cursors: stops after 10 in a row', async ({ expect }) => {
    const r = await runCli(['job', 'pages', 'empty-cursors'], { env: svc.env });
    expect(r.code).toBe(1);
    expect(pageNumbers(r.stdout)).toEqual(range(1, 20));
    expect(r.stderr).toBe(
      'crawl: malformed response to GET /api/crawl/empty-cursors/pages: the service sent 10 empty batches in a row, each naming another next page; ' +
        'stopping, as the export makes no progress (wrote 20 records before the failure)\n',
    );
    expect(requestsFor(svc, 'empty-cursors')).toHaveLength(11);
  });

  it.concurrent('empty batches with ever new links: the same', async ({ expect }) => {
    const r = await runCli(['job', 'pages', 'empty-links', '--json'], { env: svc.env });
    expect(r.code).toBe(1);
    expect(pageNumbers(r.stdout)).toEqual(range(1, 5));
    expect(JSON.parse(r.stderr)).toMatchObject({ error: { message: expect.stringMatching(/10 empty batches in a row.*wrote 5 records/), exitCode: 1 } });
  });

  it.concurrent('a few empty batches between records are not a loop', async ({ expect }) => {
    const r = await runCli(['job', 'pages', 'some-empty'], { env: svc.env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(pageNumbers(r.stdout)).toEqual(range(1, 40));
  });

  it.concurrent('the same records under a new link: written once, then exit 1', async ({ expect }) => {
    const r = await runCli(['job', 'pages', 'same-batch'], { env: svc.env });
    expect(r.code).toBe(1);
    expect(pageNumbers(r.stdout)).toEqual(range(1, 30));
    expect(r.stderr).toMatch(
      /^crawl: malformed response to GET \/api\/crawl\/same-batch\/pages: the service sent the same 30 records again \(batch 2 repeats batch 1\) under another next page; stopping to avoid a loop \(wrote 30 records/,
    );
  });

  it.concurrent('a cycle of two batches: each written once', async ({ expect }) => {
    const r = await runCli(['job', 'pages', 'cycle-two'], { env: svc.env });
    expect(r.code).toBe(1);
    expect(pageNumbers(r.stdout)).toEqual(range(1, 20));
    expect(r.stderr).toMatch(/the same 10 records again \(batch 3 repeats batch 1\).*\(wrote 20 records before the failure\)\n$/);
  });

  it.concurrent('a cycle of three batches: each written once', async ({ expect }) => {
    const r = await runCli(['job', 'pages', 'cycle-three'], { env: svc.env });
    expect(r.code).toBe(1);
    expect(pageNumbers(r.stdout)).toEqual(range(1, 21));
    expect(r.stderr).toMatch(/\(batch 4 repeats batch 1\).*\(wrote 21 records before the failure\)\n$/);
  });

  it.concurrent('200 distinct batches go through', async ({ expect }) => {
    const r = await runCli(['job', 'pages', 'distinct'], { env: svc.env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(pageNumbers(r.stdout)).toEqual(range(1, 600));
  });
});

// Next links on the service's own origin that point elsewhere. The base URL here has a path (/v1),
// so "outside the base path" is a case too. Each job's first batch has records 1-3 and the link.
const LINK_CASES: Array<[string, string, boolean]> = [
  // [name, the link as sent, followed?]
  ['another path', '/v1/api/keys', false],
  ['another job', '/v1/api/crawl/someone-else/pages?cursor=2', false],
  ['outside the base path', '/api/crawl/JOB/pages?cursor=2', false],
  ['a dot-segment climbing out', '/v1/api/crawl/JOB/pages/../../someone-else/pages?cursor=2', false],
  ['an encoded dot-segment', '/v1/api/crawl/JOB/%2e%2e/someone-else/pages?cursor=2', false],
  ['an encoded dot-segment, upper case', '/v1/api/crawl/JOB/pages/%2E%2E/%2E%2E/%2E%2E/keys', false],
  ['an encoded slash in the id', '/v1/api/crawl/JOB%2Fx/pages?cursor=2', false],
  ['a longer path', '/v1/api/crawl/JOB/pages/more?cursor=2', false],
  ['a trailing slash', '/v1/api/crawl/JOB/pages/?cursor=2', false],
  ['an absolute URL elsewhere on the origin', 'ORIGIN/v1/api/crawl/someone-else/pages', false],
  ['the job\'s own endpoint, path form', '/v1/api/crawl/JOB/pages?cursor=2', true],
  ['the job\'s own endpoint, absolute', 'ORIGIN/v1/api/crawl/JOB/pages?cursor=2&x=%2F..', true],
  ['the job\'s own endpoint, letters percent-encoded', '/v1/api/%63rawl/JOB/pag%65s?cursor=2', true],
  ['the job\'s own endpoint through a harmless dot-segment', '/v1/api/crawl/JOB/./pages?cursor=2', true],
];

const LINK_JOBS: Record<string, ScriptedJob> = {};
for (const [i, [, link]] of LINK_CASES.entries()) {
  const id = `link-${i}`;
  LINK_JOBS[id] = {
    job: () => completedJob(id, 5),
    pages: (q, _n, origin) =>
      q.get('cursor') === null ? batch(records(1, 3), link.replace(/JOB/g, id).replace('ORIGIN', origin)) : batch(records(4, 2), null),
  };
}
LINK_JOBS['someone-else'] = { pages: () => batch(records(100, 1), null) };

describe('next links outside the job\'s pages endpoint are refused before any request', () => {
  it.concurrent.for(LINK_CASES.map((c, i) => [...c, i] as const))('%s', async ([, link, followed, i], { expect }) => {
    const id = `link-${i}`;
    const r = await runCli(['job', 'pages', id], { env: based.env });
    const mine = based.seen.filter((s) => s.url.includes(id));
    if (followed) {
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(pageNumbers(r.stdout)).toEqual(range(1, 5));
      expect(mine.every((s) => s.authorization !== undefined)).toBe(true);
      return;
    }
    expect(r.code).toBe(1);
    expect(pageNumbers(r.stdout)).toEqual(range(1, 3));
    expect(r.stderr).toMatch(
      new RegExp(`^crawl: refusing to follow the next page link to \\S+: only this job's pages \\(/v1/api/crawl/${id}/pages\\) are followed \\(wrote 3 records before the failure\\)\\n$`),
    );
    // The one request for the job's pages, and none anywhere else after it.
    const target = link.replace(/JOB/g, id).replace('ORIGIN', '');
    expect(based.seen.some((s) => s.url === target)).toBe(false);
    expect(mine.filter((s) => s.url.includes('/pages'))).toHaveLength(1);
    expect(based.seen.some((s) => /someone-else|\/api\/keys/.test(s.url))).toBe(false);
  });

  it.concurrent('another origin is still refused as such', async ({ expect }) => {
    const other = await startPagesServer({});
    try {
      const local = await startPagesServer({ away: { pages: () => batch(records(1, 2), `${other.origin}/v1/api/crawl/away/pages?cursor=2`) } }, { basePath: '/v1' });
      try {
        const r = await runCli(['job', 'pages', 'away'], { env: local.env });
        expect(r.code).toBe(1);
        expect(r.stderr).toMatch(/^crawl: refusing to follow the next page link to another origin .*\(wrote 2 records before the failure\)\n$/);
        expect(other.seen).toHaveLength(0);
      } finally {
        await local.close();
      }
    } finally {
      await other.close();
    }
  });
});

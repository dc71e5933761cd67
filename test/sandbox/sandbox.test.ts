import { request as httpRequest } from 'node:http';
import { PassThrough } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { runSandbox, startSandbox, type Sandbox, type SandboxClock } from '../../src/sandbox/index.js';
import { realSandboxClock } from '../../src/sandbox/faults.js';
import { fakeClock, type FakeClock } from '../support/fake-clock.js';

const JSON_TYPE = 'application/json; charset=utf-8';
/** A JSON answer of the sandbox, read field by field as a client would. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test reads any field of any answer; a type per route would only restate the assertions
type Json = any;

/** While a test runs on a clock of its own (onFakeClock), the sandboxes' delays wait on it. */
let held: FakeClock | undefined;
/** How many delays of each length were asked of the held clock. */
const armedDelays = new Map<number, number>();
const sandboxClock: SandboxClock = {
  sleep(ms, signal) {
    if (held === undefined) return realSandboxClock.sleep(ms, signal);
    armedDelays.set(ms, (armedDelays.get(ms) ?? 0) + 1);
    // A deadline on the fake clock: it passes only when the test moves time.
    return held.deadline(ms, signal);
  },
  every: (ms, tick) => (held ?? realSandboxClock).every(ms, tick),
};

let sb: Sandbox;

beforeAll(async () => {
  sb = await startSandbox({ clock: sandboxClock });
});
afterAll(async () => {
  await sb.close();
});
afterEach(() => {
  sb.clearFaults();
});

interface CallOptions {
  method?: string;
  /** null: no Authorization header at all. */
  key?: string | null;
  body?: unknown;
  rawBody?: string;
  redirect?: 'follow' | 'manual' | 'error';
  signal?: AbortSignal;
  on?: Sandbox;
}

function call(path: string, opts: CallOptions = {}): Promise<Response> {
  const target = opts.on ?? sb;
  const headers: Record<string, string> = {};
  const key = opts.key === undefined ? target.key : opts.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  let body: string | undefined = opts.rawBody;
  if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined) headers['content-type'] = 'application/json';
  return fetch(target.url + path, {
    method: opts.method ?? 'GET',
    headers,
    ...(body !== undefined ? { body } : {}),
    ...(opts.redirect ? { redirect: opts.redirect } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
}

async function callJson(path: string, opts: CallOptions = {}): Promise<{ status: number; body: Json; res: Response }> {
  const res = await call(path, opts);
  expect(res.headers.get('content-type')).toBe(JSON_TYPE);
  return { status: res.status, body: await res.json(), res };
}

const enc = encodeURIComponent;

/** A GET on node:http (no timers of its own), its answer read whole: the status, or 'dropped'. */
function rawGet(url: string, key: string = sb.key): Promise<{ status: number | 'dropped'; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve) => {
    const req = httpRequest(url, { headers: { authorization: `Bearer ${key}` }, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', () => resolve({ status: 'dropped', headers: {}, body }));
    });
    req.on('error', () => resolve({ status: 'dropped', headers: {}, body: '' }));
    req.end();
  });
}

/**
 * The sandbox's delays on a clock of the test's own, so a test says exactly how long an answer is
 * held without waiting for it: `armed(ms)` is how many delays of `ms` were asked for, `tick(ms)`
 * moves time on.
 */
async function onFakeClock(test: (clock: { armed(ms: number): number; tick(ms: number): Promise<void>; until(check: () => boolean, what: string): Promise<void> }) => Promise<void>): Promise<void> {
  held = fakeClock();
  armedDelays.clear();
  const clock = held;
  try {
    await test({
      armed: (ms) => armedDelays.get(ms) ?? 0,
      tick: (ms) => clock.advance(ms),
      // Real I/O goes on between turns of the event loop.
      async until(check, what) {
        const started = Date.now();
        while (!check()) {
          if (Date.now() - started > 10_000) throw new Error(`never happened: ${what}`);
          await new Promise((resolve) => setImmediate(resolve));
        }
      },
    });
  } finally {
    held = undefined;
  }
}

describe('startSandbox', () => {
  it('listens on 127.0.0.1 with an active bootstrap key and the demo jobs', async () => {
    expect(sb.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(sb.key).toMatch(/^crk_[A-Za-z0-9]{40}$/);
    const { body } = await callJson('/api/keys');
    expect(body.keys.map((k: Json) => k.name)).toEqual(['bootstrap']);
    for (const id of ['demo-running', 'demo-pending', 'demo-small', 'demo-large', 'demo-errored',
      'demo-cancelled', 'demo-timeout', 'demo-limits', 'demo-huge']) {
      expect(sb.getJob(id), id).toBeDefined();
    }
    expect(sb.getJob('demo-timeout')).toMatchObject({ status: 'cancelled_due_to_timeout', pagesFinished: 612, pagesTotal: 1000 });
    expect(Date.parse(sb.getJob('demo-huge')!.createdAt)).toBeLessThan(Date.now() - 86_400_000);
  });

  it('honours key and seed options', async () => {
    const other = await startSandbox({ key: 'crk_fixed', seed: false });
    try {
      expect(other.key).toBe('crk_fixed');
      expect((await call('/api/crawl/demo-small', { on: other })).status).toBe(404);
      expect((await call('/api/keys', { on: other, key: 'crk_fixed' })).status).toBe(200);
    } finally {
      await other.close();
    }
  });
});

describe('authentication', () => {
  it('refuses a missing key and an unknown key with 401', async () => {
    const missing = await callJson('/api/crawl/demo-small', { key: null });
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({ success: false, error: 'Missing API key' });
    const unknown = await callJson('/api/keys', { key: 'crk_nope' });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual({ success: false, error: 'Invalid or revoked API key' });
    // Auth comes before routing, so an unknown /api route does not leak its existence.
    expect((await call('/api/whatever', { key: null })).status).toBe(401);
  });

  it('records each request with its authorization state', async () => {
    sb.requests.length = 0;
    await call('/api/keys?x=1', { key: null });
    await call('/api/keys', { key: 'crk_bad' });
    await call('/api/keys');
    await call('/__sandbox/requests', { key: null });
    expect(sb.requests).toEqual([
      { method: 'GET', url: '/api/keys?x=1', authorized: false, hadAuthorization: false },
      { method: 'GET', url: '/api/keys', authorized: false, hadAuthorization: true },
      { method: 'GET', url: '/api/keys', authorized: true, hadAuthorization: true },
    ]);
  });
});

describe('keys', () => {
  it('creates a key shown once, lists it without its value, and tracks lastUsedAt', async () => {
    const created = await callJson('/api/keys', { method: 'POST', body: { name: 'ci' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      success: true,
      key: expect.stringMatching(/^crk_[A-Za-z0-9]{40}$/),
      prefix: created.body.key.slice(0, 12),
      name: 'ci',
      warning: 'This key will not be shown again. Store it securely.',
    });
    const listed = (await callJson('/api/keys')).body.keys.find((k: Json) => k.keyPrefix === created.body.prefix);
    expect(listed).toEqual({
      id: expect.stringMatching(/^key_[0-9a-f]{12}$/),
      name: 'ci',
      keyPrefix: created.body.prefix,
      lastUsedAt: null,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/),
    });
    expect(JSON.stringify((await callJson('/api/keys')).body)).not.toContain(created.body.key);

    // The time of use is the sandbox's clock at the request: a fixed one here.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(new Date('2026-03-04T05:06:07.000Z'));
      expect((await call('/api/crawl/demo-small', { key: created.body.key })).status).toBe(200);
    } finally {
      vi.useRealTimers();
    }
    const used = (await callJson('/api/keys')).body.keys.find((k: Json) => k.id === listed.id);
    expect(used.lastUsedAt).toBe('2026-03-04T05:06:07.000Z');
  });

  it('validates the name and the JSON body', async () => {
    for (const body of [{}, { name: '' }, { name: '   ' }, { name: 42 }, []]) {
      const res = await callJson('/api/keys', { method: 'POST', body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toEqual({ success: false, error: 'name is required' });
    }
    expect((await call('/api/keys', { method: 'POST', body: { name: 'x'.repeat(100) } })).status).toBe(201);
    expect((await call('/api/keys', { method: 'POST', body: { name: 'x'.repeat(101) } })).status).toBe(400);
    const broken = await callJson('/api/keys', { method: 'POST', rawBody: '{"name":' });
    expect(broken.status).toBe(400);
    expect(broken.body.success).toBe(false);
  });

  it('revokes a key: 401 at once, gone from the list, second revoke 404', async () => {
    const { id, key } = sb.addKey('doomed');
    expect((await call('/api/keys', { key })).status).toBe(200);
    // The revoking request may use the key being revoked.
    const revoked = await callJson(`/api/keys/${id}`, { method: 'DELETE', key });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ success: true, id, revoked: true });
    const after = await callJson('/api/keys', { key });
    expect(after.status).toBe(401);
    expect(after.body.error).toBe('Invalid or revoked API key');
    expect((await callJson('/api/keys')).body.keys.map((k: Json) => k.id)).not.toContain(id);
    const again = await callJson(`/api/keys/${id}`, { method: 'DELETE' });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ success: false, error: `Key not found: ${id}` });
  });
});

describe('jobs', () => {
  it('returns completed jobs of <= 100 pages with their pages inline', async () => {
    const { status, body } = await callJson('/api/crawl/demo-small');
    expect(status).toBe(200);
    expect(body.job).toEqual({
      id: 'demo-small',
      url: 'https://example.com/',
      status: 'completed',
      pagesTotal: 42,
      pagesFinished: 42,
      creditsUsed: 42,
      createdAt: expect.any(String),
    });
    expect(body.pages).toHaveLength(42);
    expect(body.pages[0]).toMatchObject({ url: 'https://example.com/page/1', title: 'Page 1', statusCode: 200 });
    expect(body.pages[41].url).toBe('https://example.com/page/42');
  });

  it('returns pages null above 100 pages and while running', async () => {
    expect((await callJson('/api/crawl/demo-large')).body.pages).toBeNull();
    const running = (await callJson('/api/crawl/demo-running')).body;
    expect(running.pages).toBeNull();
    expect(running.job.creditsUsed).toBe(0);
  });

  it('shows errorMessage only when set, and passes unknown statuses and extra fields through', async () => {
    expect((await callJson('/api/crawl/demo-errored')).body.job).toMatchObject({
      status: 'errored', pagesFinished: 17, pagesTotal: 80, errorMessage: 'Robots.txt disallowed the remaining pages',
    });
    expect((await callJson('/api/crawl/demo-small')).body.job).not.toHaveProperty('errorMessage');
    sb.addJob({ id: 'odd', status: 'paused_by_admin', pagesTotal: 5, extra: { region: 'eu', pagesFinished: null } });
    const { body } = await callJson('/api/crawl/odd');
    expect(body.job).toMatchObject({ status: 'paused_by_admin', region: 'eu', pagesFinished: null });
  });

  it('keeps page records valid JSON whatever the job URL holds', async () => {
    const url = 'https://example.com/"quoted"\\back\u2028ünï/';
    sb.addJob({ id: 'odd-url', url, status: 'completed', pagesTotal: 3 });
    const { body } = await callJson('/api/crawl/odd-url');
    expect(body.pages.map((p: Json) => p.url)).toEqual([1, 2, 3].map((n) => `${url}page/${n}`));
    expect(body.pages[2].markdown).toMatch(/^# Page 3\n/);
  });

  it('answers 404 for an unknown job', async () => {
    const { status, body } = await callJson('/api/crawl/nope');
    expect(status).toBe(404);
    expect(body).toEqual({ success: false, error: 'Job not found: nope' });
  });

  it('advances a running job per poll and completes it with credits', async () => {
    const job = sb.addJob({ status: 'running', pagesTotal: 30, advance: { perPoll: 10 } });
    expect(job.id).toMatch(/^job_[0-9a-f]{12}$/);
    const seen = [];
    for (let i = 0; i < 3; i++) seen.push((await callJson(`/api/crawl/${job.id}`)).body);
    expect(seen.map((b) => [b.job.status, b.job.pagesFinished, b.job.creditsUsed])).toEqual([
      ['running', 10, 0], ['running', 20, 0], ['completed', 30, 30],
    ]);
    expect(seen[2].pages).toHaveLength(30);
    expect(sb.getJob(job.id)?.status).toBe('completed');
  });

  it('advances a running job with elapsed time', () => {
    const now = vi.spyOn(Date, 'now');
    try {
      now.mockReturnValue(1_000_000);
      const job = sb.addJob({ status: 'running', pagesTotal: 12, advance: { perSecond: 5, endStatus: 'errored' } });
      now.mockReturnValue(1_002_000);
      expect(sb.getJob(job.id)?.pagesFinished).toBe(10);
      now.mockReturnValue(1_002_100);
      expect(sb.getJob(job.id)?.pagesFinished).toBe(10);
      now.mockReturnValue(1_002_200);
      expect(sb.getJob(job.id)?.pagesFinished).toBe(11);
      now.mockReturnValue(1_010_000);
      expect(sb.getJob(job.id)).toMatchObject({ status: 'errored', pagesFinished: 12, creditsUsed: 12 });
    } finally {
      now.mockRestore();
    }
  });

  it('keeps a pending job pending with no pages', async () => {
    const first = (await callJson('/api/crawl/demo-pending')).body;
    const second = (await callJson('/api/crawl/demo-pending')).body;
    expect([first.job.status, second.job.status]).toEqual(['pending', 'pending']);
    const pages = (await callJson('/api/crawl/demo-pending/pages')).body;
    expect(pages).toEqual({ success: true, pages: [], next: null });
  });
});

describe('pages endpoint', () => {
  const total = 257;
  const expected = Array.from({ length: total }, (_, i) => `https://example.com/page/${i + 1}`);

  for (const records of ['pages', 'data'] as const) {
    for (const next of ['next', 'nextCursor'] as const) {
      for (const link of ['cursor', 'path', 'url'] as const) {
        it(`paginates every record in order with records=${records} next=${next} link=${link}`, async () => {
          const id = `shape-${records}-${next}-${link}`;
          sb.addJob({ id, status: 'completed', pagesTotal: total, pagesShape: { records, next, link } });
          const urls: string[] = [];
          let path: string = `/api/crawl/${id}/pages?limit=50`;
          let batches = 0;
          for (;;) {
            const { status, body } = await callJson(path);
            expect(status).toBe(200);
            expect(Object.keys(body).sort()).toEqual([next, records, 'success'].sort());
            urls.push(...body[records].map((r: Json) => r.url));
            batches += 1;
            const link_ = body[next];
            if (link_ === null) break;
            if (link === 'cursor') {
              expect(link_).not.toMatch(/[/?&=]/);
              path = `/api/crawl/${id}/pages?cursor=${enc(link_)}&limit=50`;
            } else if (link === 'path') {
              expect(link_).toMatch(new RegExp(`^/api/crawl/${id}/pages\\?`));
              path = link_;
            } else {
              expect(link_.startsWith(`${sb.url}/api/crawl/${id}/pages?`)).toBe(true);
              path = link_.slice(sb.url.length);
            }
          }
          expect(urls).toEqual(expected);
          expect(batches).toBe(6);
        });
      }
    }
  }

  it('defaults to 100 a batch and caps the limit at 1000', async () => {
    const first = (await callJson('/api/crawl/demo-large/pages')).body;
    expect(first.pages).toHaveLength(100);
    expect(typeof first.next).toBe('string');
    expect((await callJson('/api/crawl/demo-huge/pages?limit=5000')).body.pages).toHaveLength(1000);
  });

  it('pagesPerBatch: batches no larger than it, whatever the limit asked, and links that keep the limit', async () => {
    sb.addJob({ id: 'per-batch', status: 'completed', pagesTotal: 150, pagesShape: { link: 'path' }, pagesPerBatch: 60 });
    const first = (await callJson('/api/crawl/per-batch/pages?limit=1000')).body;
    expect(first.pages).toHaveLength(60);
    expect(first.next).toMatch(/^\/api\/crawl\/per-batch\/pages\?cursor=[^&]+&limit=1000$/);
    const second = (await callJson(first.next)).body;
    expect(second.pages.map((p: Json) => p.url)).toEqual(first.pages.map((_: Json, i: number) => `https://example.com/page/${61 + i}`));
    expect((await callJson('/api/crawl/per-batch/pages?limit=20')).body.pages).toHaveLength(20);
  });

  it('rejects an invalid limit or cursor with 400', async () => {
    for (const query of ['limit=0', 'limit=-1', 'limit=abc', 'limit=1.5', 'cursor=%21%21', 'cursor=bm9wZQ',
      `cursor=${Buffer.from('251').toString('base64url')}`]) {
      const res = await callJson(`/api/crawl/demo-large/pages?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.success).toBe(false);
    }
  });

  it('serves only the finished pages of running, errored and cancelled jobs', async () => {
    sb.addJob({ id: 'half', status: 'running', pagesTotal: 100, pagesFinished: 30 });
    expect((await callJson('/api/crawl/half/pages')).body.pages).toHaveLength(30);
    expect((await callJson('/api/crawl/demo-errored/pages')).body.pages).toHaveLength(17);
    const limits = (await callJson('/api/crawl/demo-limits/pages?limit=1000')).body;
    expect([limits.pages.length, limits.next]).toEqual([500, null]);
    expect((await call('/api/crawl/nope/pages')).status).toBe(404);
  });

  it('generates pages lazily: a million-page job costs no memory until read', async () => {
    const before = process.memoryUsage().heapUsed;
    sb.addJob({ id: 'million', status: 'completed', pagesTotal: 1_000_000 });
    sb.addJob({ id: 'billion', status: 'completed', pagesTotal: 1_000_000_000 });
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(4 * 1024 * 1024);

    const cursor = Buffer.from('999500').toString('base64url');
    const tail = (await callJson(`/api/crawl/million/pages?cursor=${cursor}&limit=1000`)).body;
    expect(tail.pages).toHaveLength(500);
    expect(tail.pages[499].url).toBe('https://example.com/page/1000000');
    expect(tail.next).toBeNull();
    const far = Buffer.from('999999999').toString('base64url');
    expect((await callJson(`/api/crawl/billion/pages?cursor=${far}`)).body.pages[0].title).toBe('Page 1000000000');
  });
});

describe('cancel', () => {
  it('cancels pending and running jobs', async () => {
    sb.addJob({ id: 'c-run', status: 'running', pagesTotal: 100, pagesFinished: 40 });
    const run = await callJson('/api/crawl/c-run', { method: 'DELETE' });
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ success: true, job: { id: 'c-run', status: 'cancelled_by_user', pagesFinished: 40, creditsUsed: 40 } });
    sb.addJob({ id: 'c-pend', status: 'pending', pagesTotal: 10 });
    expect((await callJson('/api/crawl/c-pend', { method: 'DELETE' })).body.job.status).toBe('cancelled_by_user');
    expect((await callJson('/api/crawl/c-pend')).body.job.status).toBe('cancelled_by_user');
  });

  it('answers 409 for a finished job and 404 for an unknown one', async () => {
    const done = await callJson('/api/crawl/demo-small', { method: 'DELETE' });
    expect(done.status).toBe(409);
    expect(done.body).toEqual({ success: false, error: 'Job demo-small is already completed and cannot be cancelled' });
    expect((await call('/api/crawl/demo-cancelled', { method: 'DELETE' })).status).toBe(409);
    expect((await call('/api/crawl/nope', { method: 'DELETE' })).status).toBe(404);
  });

  it('can answer 202 with a message and lag behind for some polls', async () => {
    sb.addJob({ id: 'c-lag', status: 'running', pagesTotal: 100, advance: { perPoll: 1 }, cancel: { lagPolls: 2, response: 'message' } });
    const res = await callJson('/api/crawl/c-lag', { method: 'DELETE' });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ success: true, message: 'Cancellation requested' });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await callJson('/api/crawl/c-lag')).body.job.status);
    expect(statuses).toEqual(['running', 'running', 'cancelled_by_user', 'cancelled_by_user']);
    // Progress freezes once the cancellation is requested.
    expect(sb.getJob('c-lag')?.pagesFinished).toBe(0);
  });
});

describe('ids that need encoding', () => {
  const ids = ['a/b', '../../etc/passwd', 'q?x=1&y=2', 'frag#ment', 'a/../b?c#d', '%41 literal', 'ünï côde'];

  it.each(ids)('round-trips %j when encoded as one segment', async (id) => {
    sb.addJob({ id, status: 'completed', pagesTotal: 150, pagesShape: { link: 'path' } });
    const { status, body } = await callJson(`/api/crawl/${enc(id)}`);
    expect(status).toBe(200);
    expect(body.job.id).toBe(id);
    const first = (await callJson(`/api/crawl/${enc(id)}/pages`)).body;
    const second = (await callJson(first.next)).body;
    expect([first.pages.length, second.pages.length, second.next]).toEqual([100, 50, null]);
  });

  it('routes on the raw path, so an encoded slash never reaches another job', async () => {
    sb.addJob({ id: 'x', url: 'https://plain.example/', status: 'completed', pagesTotal: 1 });
    sb.addJob({ id: 'a/../x', url: 'https://dotted.example/', status: 'completed', pagesTotal: 1 });
    expect((await callJson('/api/crawl/a%2F..%2Fx')).body.job.url).toBe('https://dotted.example/');
    expect((await callJson('/api/crawl/x')).body.job.url).toBe('https://plain.example/');
    expect((await call('/api/crawl/%E0%A4%A')).status).toBe(400);
  });
});

describe('routing', () => {
  it('answers JSON 404 for unknown routes and 405 for a wrong method', async () => {
    const unknown = await callJson('/nothing-here');
    expect(unknown.status).toBe(404);
    expect(unknown.body.success).toBe(false);
    expect((await callJson('/api/crawl/demo-small/pages/extra')).status).toBe(404);
    const wrong = await callJson('/api/keys', { method: 'PUT' });
    expect(wrong.status).toBe(405);
    expect(wrong.res.headers.get('allow')).toBe('GET, POST');
    expect((await call('/api/crawl/demo-small', { method: 'POST' })).status).toBe(405);
    expect((await call('/api/crawl/demo-small/pages', { method: 'DELETE' })).status).toBe(405);
  });

  it('keeps connections alive', async () => {
    const res = await call('/api/keys');
    await res.arrayBuffer();
    expect(res.headers.get('connection') ?? 'keep-alive').toBe('keep-alive');
    expect(res.headers.get('keep-alive')).toMatch(/timeout=5/);
  });
});

describe('faults', () => {
  it('latency delays the answer by exactly its time', async () => {
    await onFakeClock(async (clock) => {
      sb.inject({ kind: 'latency', ms: 120, path: '/api/keys' });
      let answered = false;
      const answer = rawGet(`${sb.url}/api/keys`).finally(() => (answered = true));
      await clock.until(() => clock.armed(120) === 1, 'the request held');
      await clock.tick(119);
      expect(answered).toBe(false);
      await clock.tick(1);
      expect((await answer).status).toBe(200);
    });
  });

  it('status answers the given status, body and headers, before auth', async () => {
    sb.inject({ kind: 'status', status: 503, body: '<h1>down</h1>', contentType: 'text/html', headers: { 'x-why': 'test' }, times: 1 });
    const res = await call('/api/keys', { key: null });
    expect([res.status, res.headers.get('content-type'), res.headers.get('x-why'), await res.text()])
      .toEqual([503, 'text/html', 'test', '<h1>down</h1>']);
    const plain = await callJson('/api/keys', { key: null });
    expect(plain.status).toBe(401);
    sb.inject({ kind: 'status' });
    const injected = await call('/api/keys');
    expect([injected.status, await injected.json()]).toEqual([500, { success: false, error: 'Injected fault' }]);
  });

  it('retry-after answers 429 with the Retry-After header', async () => {
    sb.inject({ kind: 'retry-after', retryAfter: 'Wed, 21 Oct 2015 07:28:00 GMT' });
    const res = await call('/api/keys');
    expect([res.status, res.headers.get('retry-after')]).toEqual([429, 'Wed, 21 Oct 2015 07:28:00 GMT']);
  });

  it('redirect answers with Location', async () => {
    sb.inject({ kind: 'redirect', status: 307, location: 'https://elsewhere.example/api/keys', times: 1 });
    const res = await call('/api/keys', { redirect: 'manual' });
    expect([res.status, res.headers.get('location')]).toEqual([307, 'https://elsewhere.example/api/keys']);
    sb.inject({ kind: 'redirect', times: 1 });
    const followed = await call('/api/crawl/demo-small');
    expect([followed.status, followed.redirected]).toEqual([200, true]);
  });

  it('drop destroys the connection before any answer', async () => {
    sb.inject({ kind: 'drop', times: 1 });
    await expect(call('/api/keys')).rejects.toThrow();
    expect((await call('/api/keys')).status).toBe(200);
  });

  it('drop-mid-body sends the headers and half of the real body', async () => {
    sb.inject({ kind: 'drop-mid-body', path: '/api/crawl/demo-small' });
    const seen = await new Promise<{ status?: number; length: number; bytes: number }>((resolve, reject) => {
      const req = httpRequest(`${sb.url}/api/crawl/demo-small`, { headers: { authorization: `Bearer ${sb.key}` }, agent: false }, (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.on('error', () => undefined);
        res.on('close', () => resolve({ status: res.statusCode, length: Number(res.headers['content-length']), bytes }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(seen.status).toBe(200);
    expect(seen.length).toBeGreaterThan(1000);
    expect(seen.bytes).toBe(Math.floor(seen.length / 2));
    const viaFetch = await call('/api/crawl/demo-small');
    expect(viaFetch.status).toBe(200);
    await expect(viaFetch.text()).rejects.toThrow();
  });

  it('trickle sends headers, then one byte at a time', async () => {
    await onFakeClock(async (clock) => {
      sb.inject({ kind: 'trickle', ms: 15 });
      let text = '';
      let headers: Record<string, unknown> | undefined;
      const req = httpRequest(`${sb.url}/api/keys`, { headers: { authorization: `Bearer ${sb.key}` }, agent: false }, (res) => {
        expect(res.statusCode).toBe(200);
        headers = res.headers;
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      });
      req.on('error', () => undefined);
      req.end();
      await clock.until(() => headers !== undefined, 'the headers');
      expect(headers?.['content-length']).toBeUndefined();
      expect(text).toBe('');
      // One byte each 15 ms, and none in between.
      await clock.tick(15);
      await clock.until(() => text.length === 1, 'the first byte');
      await clock.tick(14);
      expect(text).toBe(' ');
      await clock.tick(1);
      await clock.until(() => text.length === 2, 'the second byte');
      await clock.tick(15);
      await clock.until(() => text.length === 3, 'the third byte');
      expect(text).toBe('   ');
      req.destroy();
    });
  });

  it('hang never answers, and close() still resolves promptly', async () => {
    const own = await startSandbox({ seed: false });
    expect((await call('/api/keys', { on: own })).status).toBe(200); // leaves a kept-alive socket
    own.inject({ kind: 'hang' });
    const pending = call('/api/keys', { on: own });
    const outcome = pending.then(() => 'answered', () => 'failed');
    await vi.waitFor(() => expect(own.requests).toHaveLength(2));
    // A hang lasts until the client gives up, and this one never does (no timeout, no abort): a
    // close() that waited for busy sockets would never resolve. That it resolves at all, with the
    // request failed, is what "promptly" means here, without a wall-clock bound.
    await own.close();
    expect(await outcome).toBe('failed');
  });

  it('skip and times pick which matching requests fail', async () => {
    sb.inject({ kind: 'status', path: '/api/crawl/demo-small', skip: 2, times: 1 });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await call('/api/crawl/demo-small')).status);
    expect(statuses).toEqual([200, 200, 500, 200]);
  });

  it('matches method and regular-expression paths; the first matching fault wins', async () => {
    sb.inject({ kind: 'status', status: 502, method: 'get', path: '^/api/crawl/demo-large/pages\\?cursor=' });
    sb.inject({ kind: 'status', status: 503, path: '^/api/crawl/demo-large/pages' });
    sb.inject({ kind: 'status', status: 504, method: 'DELETE' });
    const first = await call('/api/crawl/demo-large/pages?limit=10');
    expect(first.status).toBe(503);
    sb.clearFaults();
    sb.inject({ kind: 'status', status: 502, method: 'get', path: '^/api/crawl/demo-large/pages\\?cursor=' });
    const ok = await callJson('/api/crawl/demo-large/pages?limit=10');
    expect(ok.status).toBe(200);
    expect((await call(`/api/crawl/demo-large/pages?cursor=${ok.body.next}`)).status).toBe(502);
    expect((await call('/api/crawl/demo-large')).status).toBe(200);
  });

  it('latency combines with a later fault instead of masking it', async () => {
    await onFakeClock(async (clock) => {
      sb.inject({ kind: 'latency', ms: 60 });
      sb.inject({ kind: 'status', status: 418 });
      let answered = false;
      const answer = rawGet(`${sb.url}/api/keys`).finally(() => (answered = true));
      await clock.until(() => clock.armed(60) === 1, 'the request held');
      await clock.tick(59);
      expect(answered).toBe(false);
      await clock.tick(1);
      expect((await answer).status).toBe(418);
    });
  });

  it('rejects a malformed fault', () => {
    expect(() => sb.inject({ kind: 'explode' } as never)).toThrow(TypeError);
    expect(() => sb.inject({ kind: 'status', path: '^(' })).toThrow(TypeError);
  });
});

describe('control endpoints', () => {
  it('inject and clear faults, add jobs and list requests, without auth and immune to faults', async () => {
    const injected = await callJson('/__sandbox/faults', { method: 'POST', key: null, body: { kind: 'drop' } });
    expect(injected.status).toBe(201);
    await expect(call('/api/keys')).rejects.toThrow();

    const added = await callJson('/__sandbox/jobs', {
      method: 'POST', key: null, body: { id: 'ctl', status: 'running', pagesTotal: 7, extra: { note: 'hi' } },
    });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ id: 'ctl', status: 'running', pagesTotal: 7, pagesFinished: 0, note: 'hi' });

    const requests = await callJson('/__sandbox/requests', { key: null });
    expect(requests.body.requests.at(-1)).toEqual({ method: 'GET', url: '/api/keys', authorized: true, hadAuthorization: true });

    expect((await call('/__sandbox/faults', { method: 'DELETE', key: null })).status).toBe(200);
    expect((await callJson('/api/crawl/ctl')).body.job.note).toBe('hi');
  });

  it('refuses malformed faults and job specs with 400', async () => {
    for (const [path, body] of [
      ['/__sandbox/faults', { kind: 'nope' }],
      ['/__sandbox/faults', { kind: 'status', times: -1 }],
      ['/__sandbox/jobs', { status: 'completed' }],
      ['/__sandbox/jobs', { status: 'completed', pagesTotal: 3, pagesShape: { link: 'ftp' } }],
      ['/__sandbox/jobs', { status: 'completed', pagesTotal: 3, pagesPerBatch: 0 }],
    ] as const) {
      expect((await call(path, { method: 'POST', key: null, body })).status, JSON.stringify(body)).toBe(400);
    }
    expect((await call('/__sandbox/jobs', { method: 'POST', key: null, rawBody: '{' })).status).toBe(400);
  });
});

describe('runSandbox', () => {
  function collect(stream: PassThrough): () => string {
    let text = '';
    stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    return () => text;
  }

  it('prints the URL and key, applies the fault flags, and exits 0 when stopped (Ctrl-C)', async () => {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const out = collect(stdout);
    const err = collect(stderr);
    const stop = new AbortController();
    const exit = runSandbox({ port: 0, latency: 20, failEvery: 2, rateLimitEvery: 3, dropEvery: 5, stdout, stderr, key: 'crk_from_env', stop: stop.signal, clock: sandboxClock });
    await vi.waitFor(() => expect(out()).toMatch(/Bootstrap key: .*\n/));
    const match = /^Sandbox listening on (http:\/\/127\.0\.0\.1:\d+)\nBootstrap key: (crk_from_env)\n$/.exec(out());
    expect(match).not.toBeNull();
    const url = match![1]!;
    expect(err()).toContain(`export CRAWL_BASE_URL=${url} CRAWL_API_KEY=crk_from_env`);
    expect(err()).toContain('demo-running');
    expect(err()).toContain('Ctrl-C to stop');
    expect(err()).toContain('every 2nd /api request answers 503');

    // Each answer is held --latency (20 ms) first: on a fake clock, exactly that, never on the wall clock.
    const outcomes: (number | string)[] = [];
    await onFakeClock(async (clock) => {
      for (let i = 0; i < 7; i++) {
        let answered = false;
        const answer = rawGet(`${url}/api/keys`, 'crk_from_env').finally(() => (answered = true));
        await clock.until(() => clock.armed(20) === i + 1, 'the request held');
        await clock.tick(19);
        expect(answered).toBe(false);
        await clock.tick(1);
        const res = await answer;
        outcomes.push(res.status === 429 ? `429/${String(res.headers['retry-after'])}` : res.status);
      }
    });
    expect(outcomes).toEqual([200, 503, '429/1', 503, 'dropped', 503, 200]);

    // `crawl sandbox` stops on the run's signal, which the process aborts on Ctrl-C or SIGTERM.
    stop.abort();
    expect(await exit).toBe(0);
    expect(err()).toContain('Sandbox stopped.');
    await expect(fetch(`${url}/api/keys`)).rejects.toThrow();
  });

  it('exits 1 with a message when the port is taken, 2 for bad options', async () => {
    const stderr = new PassThrough();
    const err = collect(stderr);
    const port = Number(new URL(sb.url).port);
    expect(await runSandbox({ port, stdout: new PassThrough(), stderr, stop: new AbortController().signal })).toBe(1);
    // Who holds it, and what to do (test/commands/sandbox/sandbox.test.ts has the other holder).
    expect(err()).toMatch(/^crawl: cannot start the sandbox on 127\.0\.0\.1:\d+: the port is already in use, by a crawl sandbox\nhint: use that one \(export CRAWL_BASE_URL=http:\/\/127\.0\.0\.1:\d+ and the key it printed\)[^\n]*\n$/);
    expect(await runSandbox({ port: 0, failEvery: 0, stdout: new PassThrough(), stderr, stop: new AbortController().signal })).toBe(2);
  });
});

// The HTTP layer as a user meets it: exit codes per failure, retries, redirects, encoding of ids,
// clear-text refusal and the --verbose trace, all over real HTTP on 127.0.0.1.
import { createServer, type IncomingHttpHeaders, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, type ExpectStatic } from 'vitest';
import { realClock } from '../../src/platform/clock.js';
import { HttpClient } from '../../src/http/client.js';
import { maskKey } from '../../src/text/mask.js';
import { fakeClock } from '../support/fake-clock.js';
import { runCli } from '../support/harness.js';
import { startSilentTcp } from '../support/hostile-server.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';

let fx: SandboxFixture;
beforeAll(async () => {
  fx = await sandboxFixture();
});
afterAll(() => fx.close());

function hits(path: string, method = 'GET'): number {
  return fx.sandbox.requests.filter((r) => r.url === path && r.method === method).length;
}

interface Served {
  url: string;
  seen: Array<{ method: string; url: string; headers: IncomingHttpHeaders }>;
  close(): Promise<void>;
}

/** A throwaway server (another origin than the sandbox) that records what it receives. */
async function serve(handler: RequestListener, host = '127.0.0.1'): Promise<Served> {
  const seen: Served['seen'] = [];
  const server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((fn) => fn()));
});

/** The run paused `retries` times, each the HTTP layer's backoff for its attempt (125-250, 250-500, 500-1000 ms). */
function expectBackoff(expect: ExpectStatic, sleeps: readonly number[] | undefined, retries: number): void {
  expect(sleeps, 'the run waits on a fake clock').toBeDefined();
  expect(sleeps).toHaveLength(retries);
  sleeps?.forEach((ms, i) => {
    const ceiling = 250 * 2 ** i;
    expect(ms).toBeGreaterThanOrEqual(ceiling / 2);
    expect(ms).toBeLessThanOrEqual(ceiling);
  });
}

function jobBody(id: string): string {
  return JSON.stringify({
    success: true,
    job: { id, url: 'https://example.com/', status: 'completed', pagesTotal: 1, pagesFinished: 1, creditsUsed: 1, createdAt: '2026-01-01T00:00:00Z' },
    pages: [],
  });
}

describe('status codes to exit codes', () => {
  it.concurrent('a key the service rejects exits 4, pointing at `crawl auth status`, without echoing the key', async ({ expect }) => {
    const bad = 'crk_' + 'Z'.repeat(40);
    const r = await runCli(['job', 'demo-small'], { env: { ...fx.env, CRAWL_API_KEY: bad } });
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^crawl: GET \/api\/crawl\/demo-small failed: HTTP 401: Invalid or revoked API key\n/);
    expect(r.stderr).toContain('crawl auth status');
    expect(r.stderr).not.toContain(bad);
  });

  it.concurrent('an unknown job exits 3 with the status and the server message', async ({ expect }) => {
    const r = await runCli(['job', 'no-such-job'], { env: fx.env });
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('crawl: GET /api/crawl/no-such-job failed: HTTP 404: Job not found: no-such-job\n');
  });
});

describe('ids are one path segment', () => {
  it.concurrent.for(['a/../b', 'x?y=1#frag', 'sp ace%2F/..'])('%j is fetched encoded, as one segment', async (id, { expect }) => {
    fx.sandbox.addJob({ id, status: 'completed', pagesTotal: 2 });
    const r = await runCli(['job', id], { env: fx.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`id\t${id}\n`);
    expect(hits(`/api/crawl/${encodeURIComponent(id)}`)).toBe(1);
  });

  it('refuses ids that would turn into dot-segments or the collection (exit 2), sending nothing', async () => {
    const before = fx.sandbox.requests.length;
    for (const id of ['..', '.', '']) {
      const r = await runCli(['job', id], { env: fx.env });
      expect(r.code, JSON.stringify(id)).toBe(2);
      expect(r.stderr).toContain(`invalid id "${id}"`);
    }
    expect(fx.sandbox.requests.length).toBe(before);
  });
});

describe('failures and retries', () => {
  it.concurrent('an HTML 502 page: its title in the message, exit 1 after the retries', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'gw-502', status: 'completed', pagesTotal: 1 });
    fx.sandbox.inject({
      path: '/api/crawl/gw-502',
      kind: 'status',
      status: 502,
      contentType: 'text/html',
      body: '<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>nginx/1.25</h1></body></html>',
    });
    const r = await runCli(['job', 'gw-502'], { env: fx.env });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('crawl: GET /api/crawl/gw-502 failed: HTTP 502: 502 Bad Gateway\n');
    expect(hits('/api/crawl/gw-502')).toBe(4);
    expectBackoff(expect, r.clock?.sleeps, 3);
  });

  it.concurrent('a plain-text error body is shown as the server message', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'txt-500', status: 'completed', pagesTotal: 1 });
    fx.sandbox.inject({ path: '/api/crawl/txt-500', kind: 'status', status: 500, contentType: 'text/plain', body: 'database on fire\nstack...' });
    const r = await runCli(['job', 'txt-500'], { env: fx.env });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('crawl: GET /api/crawl/txt-500 failed: HTTP 500: database on fire\n');
  });

  it.concurrent('malformed JSON in a 200 exits 1', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'bad-json', status: 'completed', pagesTotal: 1 });
    fx.sandbox.inject({ path: '/api/crawl/bad-json', kind: 'status', status: 200, body: '{"success":true,"job":{' });
    const r = await runCli(['job', 'bad-json'], { env: fx.env });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^crawl: malformed response to GET \/api\/crawl\/bad-json: the body is not valid JSON/);
  });

  it.concurrent('a 200 that is JSON but not a job exits 1', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'not-a-job', status: 'completed', pagesTotal: 1 });
    fx.sandbox.inject({ path: '/api/crawl/not-a-job', kind: 'status', status: 200, body: '{"success":true,"data":[]}' });
    const r = await runCli(['job', 'not-a-job'], { env: fx.env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^crawl: malformed response to GET \/api\/crawl\/not-a-job: no "job" object/);
  });

  it.concurrent('a server that never answers: exit 5 after --timeout, in bounded time', async ({ expect }) => {
    // The --timeout is on the run's clock: each attempt hangs until the server has it, then lasts
    // its 0.3 s there.
    const clock = fakeClock();
    const silent = await startSilentTcp({ onHold: () => void clock.untilNextDeadline() });
    try {
      const r = await runCli(['job', 'hangs', '--timeout', '0.3', '--base-url', silent.url], { env: fx.env, clock });
      expect(r.timedOut).toBe(false);
      expect(r.code).toBe(5);
      expect(r.stderr).toMatch(/^crawl: timed out after 0\.3 s waiting for GET \/api\/crawl\/hangs, on each of 4 attempts\nhint: .*--timeout/);
      // Four attempts of 0.3 s each and, between them, only the backoff.
      expect(silent.requests()).toBe(4);
      expectBackoff(expect, clock.sleeps, 3);
      expect(clock.elapsed() - clock.sleeps.reduce((sum, ms) => sum + ms, 0)).toBe(4 * 300);
    } finally {
      await silent.close();
    }
  });

  it.concurrent('a POST that hangs ends at its --timeout, and is never tried again', async ({ expect }) => {
    // On the run's clock too (the real clock's timer is platform/deadline.ts's test): the 0.2 s
    // pass once the server holds the request.
    const clock = fakeClock();
    const silent = await startSilentTcp({ onHold: () => void clock.untilNextDeadline() });
    try {
      const r = await runCli(['keys', 'create', 'x', '--timeout', '0.2', '--base-url', silent.url], { env: fx.env, clock });
      expect(r.code).toBe(5);
      expect(r.stderr).toMatch(/^crawl: timed out after 0\.2 s waiting for POST \/api\/keys; a key may have been created/);
      expect(silent.requests()).toBe(1);
      // Its 0.2 s, and no pause to try again.
      expect(clock.elapsed()).toBe(200);
      expect(clock.sleeps).toEqual([]);
    } finally {
      await silent.close();
    }
  });

  it.concurrent('connection refused exits 5', async ({ expect }) => {
    const closed = await serve((_req, res) => res.end());
    const url = closed.url;
    await closed.close();
    const r = await runCli(['job', 'x', '--base-url', url], { env: fx.env });
    expect(r.code).toBe(5);
    expect(r.stderr).toBe(`crawl: connection refused: GET ${url}/api/crawl/x\n`);
  });

  it.concurrent('429 with Retry-After is waited out and retried until it succeeds', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'rl-ok', status: 'completed', pagesTotal: 1 });
    fx.sandbox.inject({ path: '/api/crawl/rl-ok', kind: 'retry-after', retryAfter: '0', times: 2 });
    const r = await runCli(['job', 'rl-ok'], { env: fx.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('id\trl-ok\n');
    expect(hits('/api/crawl/rl-ok')).toBe(3);
    // Retry-After: 0 is waited out as asked (no backoff on top).
    expect(r.clock?.sleeps).toEqual([0, 0]);
  });

  it.concurrent('429 on every attempt exits 6 after the retries', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'rl-never', status: 'completed', pagesTotal: 1 });
    fx.sandbox.inject({ path: '/api/crawl/rl-never', kind: 'retry-after', retryAfter: '0' });
    const r = await runCli(['job', 'rl-never'], { env: fx.env });
    expect(r.code).toBe(6);
    expect(r.stderr).toBe('crawl: GET /api/crawl/rl-never failed: HTTP 429: Rate limit exceeded\n');
    expect(hits('/api/crawl/rl-never')).toBe(4);
    expect(r.clock?.sleeps).toEqual([0, 0, 0]);
  });

  it.concurrent('a Retry-After too long to wait out exits 6 at once, saying when to retry', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'rl-long', status: 'completed', pagesTotal: 1 });
    fx.sandbox.inject({ path: '/api/crawl/rl-long', kind: 'retry-after', retryAfter: '3600' });
    const r = await runCli(['job', 'rl-long'], { env: fx.env });
    expect(r.code).toBe(6);
    expect(r.stderr).toContain('retry after 3600 s');
    expect(hits('/api/crawl/rl-long')).toBe(1);
    expect(r.clock?.sleeps).toEqual([]);
  });

  it.concurrent('503 then success is retried', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'flaky', status: 'completed', pagesTotal: 1 });
    fx.sandbox.inject({ path: '/api/crawl/flaky', kind: 'status', status: 503, times: 1 });
    fx.sandbox.inject({ path: '/api/crawl/flaky', kind: 'drop', times: 1 });
    const r = await runCli(['job', 'flaky'], { env: fx.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('status\tcompleted\n');
    expect(hits('/api/crawl/flaky')).toBe(3);
    expectBackoff(expect, r.clock?.sleeps, 2);
  });

  it.concurrent('a POST is never retried, whatever the failure', async ({ expect }) => {
    fx.sandbox.inject({ method: 'POST', path: '/api/keys', kind: 'status', status: 503, body: '{"error":"try later"}' });
    const r = await runCli(['keys', 'create', 'never-twice'], { env: fx.env });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('HTTP 503');
    expect(hits('/api/keys', 'POST')).toBe(1);
    expect(r.clock?.sleeps).toEqual([]);
  });
});

describe('redirects and transport', () => {
  it('a cross-origin redirect is followed without the Authorization header', async () => {
    const other = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(jobBody('moved-away'));
    });
    cleanups.push(other.close);
    fx.sandbox.inject({ path: '/api/crawl/moved-away', kind: 'redirect', status: 307, location: `${other.url}/elsewhere/moved-away` });
    const r = await runCli(['job', 'moved-away'], { env: fx.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('id\tmoved-away\n');
    expect(other.seen).toHaveLength(1);
    expect(other.seen[0]?.url).toBe('/elsewhere/moved-away');
    expect(other.seen[0]?.headers.authorization).toBeUndefined();
    expect(JSON.stringify(other.seen[0]?.headers)).not.toContain(fx.sandbox.key);
  });

  it('a same-origin redirect keeps the key', async () => {
    fx.sandbox.addJob({ id: 'new-name', status: 'completed', pagesTotal: 1 });
    fx.sandbox.inject({ path: '/api/crawl/old-name', kind: 'redirect', location: '/api/crawl/new-name' });
    const r = await runCli(['job', 'old-name'], { env: fx.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('id\tnew-name\n');
    expect(fx.sandbox.requests.filter((q) => q.url === '/api/crawl/new-name')).toEqual([
      { method: 'GET', url: '/api/crawl/new-name', authorized: true, hadAuthorization: true },
    ]);
  });

  it('plain http:// to a remote host is refused (exit 2) before any connection; --allow-http lets it through', async () => {
    // A host crawl does not count as loopback that still reaches a listener of this machine:
    // 0.0.0.0, which Linux connects to this host. So both halves are proved on every machine,
    // with no network interface needed and no traffic leaving it.
    const remote = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(jobBody('far'));
    });
    cleanups.push(remote.close);
    const base = remote.url.replace('127.0.0.1', '0.0.0.0');

    const refused = await runCli(['job', 'far', '--base-url', base], { env: fx.env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^crawl: refusing to send the API key over plain http:\/\/ to 0\.0\.0\.0:\d+\nhint: .*--allow-http/);
    expect(remote.seen).toHaveLength(0);

    const allowed = await runCli(['job', 'far', '--base-url', base, '--allow-http'], { env: fx.env });
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(remote.seen).toHaveLength(1);
    expect(allowed.stderr).not.toContain('refusing');
  });
});

describe('--verbose', () => {
  it('traces method, URL, status, timing and retries, with the key masked and never in full', async () => {
    fx.sandbox.addJob({ id: 'traced', status: 'completed', pagesTotal: 1 });
    fx.sandbox.inject({ path: '/api/crawl/traced', kind: 'status', status: 503, times: 1 });
    const r = await runCli(['job', 'traced', '--verbose'], { env: fx.env });
    expect(r.code).toBe(0);
    const trace = r.stderr;
    expect(trace).toContain(`* GET ${fx.sandbox.url}/api/crawl/traced\n`);
    expect(trace).toMatch(/\* 503 in \d+ ms/);
    expect(trace).toMatch(/\* retrying GET \/api\/crawl\/traced in \d+ ms \(attempt 2 of 4\) after HTTP 503/);
    expect(trace).toMatch(/\* 200 in \d+ ms, \d+ bytes/);
    expect(trace).toContain(`Authorization: Bearer ${maskKey(fx.sandbox.key)}`);
    expect(trace + r.stdout).not.toContain(fx.sandbox.key);
    expect(trace + r.stdout).not.toContain(fx.sandbox.key.slice(0, 20));
  });

  it('shows the stack only with --verbose, and still never the key', async () => {
    const quiet = await runCli(['job', 'nope-x'], { env: fx.env });
    const loud = await runCli(['job', 'nope-x', '--verbose'], { env: fx.env });
    expect(quiet.code).toBe(3);
    expect(loud.code).toBe(3);
    expect(quiet.stderr).not.toMatch(/\n\s+at /);
    expect(loud.stderr).toMatch(/\n\s+at /);
    expect(loud.stderr).not.toContain(fx.sandbox.key);
  });
});

describe('timeouts count the attempts made', () => {
  it('a read that times out on every attempt says so; a POST tried once does not', async () => {
    // Each run on a server and a clock of its own: its --timeout passes once the server holds its request.
    const hung = async () => {
      const clock = fakeClock();
      const server = await startSilentTcp({ onHold: () => void clock.untilNextDeadline() });
      return { clock, server, env: { ...fx.env, CRAWL_BASE_URL: server.url } };
    };
    const [reads, posts] = await Promise.all([hung(), hung()]);
    try {
      const [read, post] = await Promise.all([
        runCli(['job', 'demo-small', '--timeout', '0.2'], { env: reads.env, clock: reads.clock }),
        runCli(['keys', 'create', 'x', '--timeout', '0.2'], { env: posts.env, clock: posts.clock }),
      ]);
      expect(read.code).toBe(5);
      expect(read.stderr.split('\n')[0]).toBe('crawl: timed out after 0.2 s waiting for GET /api/crawl/demo-small, on each of 4 attempts');
      expect(post.code).toBe(5);
      expect(post.stderr.split('\n')[0]).toMatch(/^crawl: timed out after 0\.2 s waiting for POST \/api\/keys(?!, on)/);
      expect([reads.server.requests(), posts.server.requests()]).toEqual([4, 1]);
    } finally {
      await Promise.all([reads.server.close(), posts.server.close()]);
    }
  });
});

describe('closing the client', () => {
  it('destroys the connections with an error made once: a run that made requests formats no stack', async () => {
    // Each formatted stack costs (under vitest, a source-map lookup): a run should format none.
    // The first run formats the stack of the error made once, if no run in this process has yet.
    expect((await runCli(['job', 'demo-small', '--json'], { env: fx.env })).code).toBe(0);
    const original = Error.prepareStackTrace;
    let formatted = 0;
    Error.prepareStackTrace = (error, frames) => {
      formatted++;
      return original ? original(error, frames) : String(error);
    };
    try {
      for (const argv of [['job', 'demo-small', '--json'], ['job', 'demo-small'], ['keys', 'list']]) expect((await runCli(argv, { env: fx.env })).code).toBe(0);
    } finally {
      Error.prepareStackTrace = original;
    }
    expect(formatted).toBe(0);
  });
});

describe('the certificate authorities to trust', () => {
  it('are read at the first request, once, not when the client is made', async () => {
    let reads = 0;
    const tls = async () => {
      reads++;
      return { context: undefined };
    };
    const client = new HttpClient({ baseUrl: new URL(fx.sandbox.url), apiKey: fx.sandbox.key, timeoutMs: 10_000, allowHttp: true, userAgent: 'trust-test', clock: realClock, tls });
    try {
      expect(reads).toBe(0);
      await client.request({ method: 'GET', path: ['api', 'crawl', 'demo-small'] });
      await client.request({ method: 'GET', path: ['api', 'crawl', 'demo-running'] });
      expect(reads).toBe(1);
    } finally {
      await client.close();
    }
  });
});

describe('a client closed while a request waits to be tried again', () => {
  it('ends it at once with the failure it had, and sends nothing more; a request after close() is refused, said so', async () => {
    // Retry-After: 30 on the real clock: a client that slept it out would hold the test past its
    // own timeout.
    let requests = 0;
    const server = await serve((_req, res) => {
      requests++;
      res.writeHead(503, { 'retry-after': '30', 'content-type': 'application/json' }).end('{"error":"busy"}');
    });
    // The trace says when the client starts to wait before trying again.
    let retrying: () => void = () => undefined;
    const waits = new Promise<void>((resolve) => (retrying = resolve));
    const trace = (line: string): void => void (line.startsWith('retrying ') && retrying());
    const client = new HttpClient({ baseUrl: new URL(server.url), apiKey: undefined, timeoutMs: 10_000, allowHttp: true, userAgent: 'close-test', clock: realClock, trace });
    try {
      const waiting = client.request({ method: 'GET', path: ['api', 'crawl', 'x'] }).then(
        () => 'answered',
        (error: Error) => error.message,
      );
      await waits;
      await client.close();
      expect(await waiting).toMatch(/^GET \/api\/crawl\/x failed: HTTP 503/);
      expect(requests).toBe(1);
      await expect(client.request({ method: 'GET', path: ['api', 'crawl', 'y'] })).rejects.toThrow(/^the client was closed before GET http:\/\/127\.0\.0\.1:\d+\/api\/crawl\/y was sent$/);
      expect(requests).toBe(1);
    } finally {
      await server.close();
    }
  });
});

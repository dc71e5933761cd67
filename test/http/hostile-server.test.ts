// Other ways a server can lead the client astray: the Authorization header echoed back (in an
// error, with --verbose, and in a 200's job or records), redirect loops, redirects and `next` links
// to another origin, bodies past the size caps, a watch told by Retry-After how long to wait, and
// answers that are not HTTP at all.
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, it, vi } from 'vitest';
import {
  checkClean,
  checkOutcome,
  command,
  COMMANDS,
  GET_ATTEMPTS,
  identity,
  job,
  MAX_BACKOFF_MS,
  MAX_WAIT_S,
  runCommand,
  withHostile,
} from '../support/battery.js';
import { fakeClock } from '../support/fake-clock.js';
import { ndjson } from '../support/harness.js';
import { startHostile, type Body, type Fault } from '../support/hostile-server.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';

vi.setConfig({ maxConcurrency: 10 });

let fx: SandboxFixture;
beforeAll(async () => {
  fx = await sandboxFixture();
});
afterAll(() => fx.close());

const bearer = (req: IncomingMessage): string => String(req.headers.authorization ?? '');

/** No case here retries for long: a watch's --max-wait is the longest any of them may take. */
const BOUND_MS = MAX_WAIT_S * 1000;

describe.concurrent('a server that echoes the Authorization header', () => {
  // Rejected keys with the header in the error body, every command, with the --verbose trace.
  it.for(COMMANDS.map((c) => [c.name, c] as const))('%s --verbose: a 401 that echoes it', async ([, cmd], { expect }) => {
    const id = identity(fx.sandbox);
    const fault: Fault = { kind: 'respond', status: 401, body: (req) => JSON.stringify({ error: `bad key ${bearer(req)}`, got: req.headers }) };
    await withHostile(id, [{ method: cmd.method, path: cmd.path(id), fault }], async (url) => {
      const r = await runCommand(cmd, id, url, { extra: ['--verbose'] });
      checkClean(expect, r, { code: 4, verbose: true, withinMs: BOUND_MS }, [id.key]);
      // The echo did reach the client: it was redacted, not lost.
      if (cmd.name !== 'auth status' && cmd.name !== 'auth login') expect(r.stderr).toContain('bad key Bearer [redacted]');
    });
  });

  // A job whose errorMessage (or a page record) carries the header, as people and scripts see it.
  const echoed = (status: string) => (req: IncomingMessage): string => job({ status, errorMessage: `proxy saw ${bearer(req)}` });
  const cases: Array<[string, string[], Body, number]> = [
    ['job status', [], echoed('errored'), 0],
    ['job status', ['--json'], echoed('errored'), 0],
    ['job watch', ['--json'], echoed('errored'), 10],
    ['job watch', [], echoed('errored'), 10],
    ['job cancel', ['--json'], echoed('cancelled_by_user'), 0],
    ['job pages', [], (req) => JSON.stringify({ pages: [{ url: 'a', headers: { authorization: bearer(req) } }], next: null }), 0],
  ];
  it.for(cases.map(([name, extra, body, code]) => [`${name} ${extra.join(' ')}`.trim(), name, extra, body, code] as const))(
    '%s: a 200 that echoes it',
    async ([, name, extra, body, code], { expect }) => {
      const cmd = command(name);
      const id = identity(fx.sandbox);
      await withHostile(id, [{ method: cmd.method, path: cmd.path(id), fault: { kind: 'respond', status: 200, body } }], async (url) => {
        const r = await runCommand(cmd, id, url, { extra });
        checkClean(expect, r, { code, json: extra.includes('--json') || name === 'job pages', withinMs: BOUND_MS }, [id.key]);
        expect(r.stdout + r.stderr).toContain('[redacted]');
      });
    },
  );
});

describe.concurrent('redirects and links', () => {
  it('a redirect loop ends after 5 hops, exit 1', async ({ expect }) => {
    const cmd = command('job status');
    const id = identity(fx.sandbox);
    await withHostile(id, [{ path: /^\/api\/crawl\//, fault: { kind: 'redirect', location: (req) => req.url ?? '/' } }], async (url, hostile) => {
      const r = await runCommand(cmd, id, url);
      checkOutcome(expect, r, { code: 1, message: /too many redirects/, withinMs: 0 }, [id.key]);
      expect(hostile.count('GET', /^\/api\/crawl\/demo-small$/)).toBe(6);
    });
  });

  it('a redirect to another origin is followed without the key', async ({ expect }) => {
    const cmd = command('job status');
    const id = identity(fx.sandbox);
    const elsewhere = await startHostile({ rules: [{ fault: { kind: 'respond', status: 200, body: job({ id: 'moved' }) } }] });
    try {
      const fault: Fault = { kind: 'redirect', status: 307, location: `${elsewhere.url}/api/crawl/demo-small` };
      await withHostile(id, [{ method: 'GET', path: cmd.path(id), fault }], async (url) => {
        const r = await runCommand(cmd, id, url);
        checkClean(expect, r, { code: 0, withinMs: 0 }, [id.key]);
        expect(r.stdout).toMatch(/^id\tmoved$/m);
        expect(elsewhere.seen).toHaveLength(1);
        expect(elsewhere.seen[0]?.headers.authorization).toBeUndefined();
      });
    } finally {
      await elsewhere.close();
    }
  });

  it('a redirect in answer to a POST is not followed, and the POST is sent once', async ({ expect }) => {
    const cmd = command('keys create');
    const id = identity(fx.sandbox);
    await withHostile(id, [{ method: 'POST', path: /^\/api\/keys$/, fault: { kind: 'redirect', status: 307, location: '/api/keys2' } }], async (url, hostile) => {
      const r = await runCommand(cmd, id, url);
      checkOutcome(expect, r, { code: 1, message: /unexpected redirect \(HTTP 307\).*not followed/, withinMs: 0 }, [id.key]);
      expect(hostile.seen.map((s) => `${s.method} ${s.url}`)).toEqual(['POST /api/keys']);
    });
  });

  it('a next page link to another origin is refused, after writing the records before it', async ({ expect }) => {
    const cmd = command('job pages');
    const id = identity(fx.sandbox);
    const elsewhere = await startHostile({ rules: [{ fault: { kind: 'respond', status: 200, body: '{"pages":[],"next":null}' } }] });
    try {
      const body = JSON.stringify({ pages: [{ url: 'a' }, { url: 'b' }], next: `${elsewhere.url}/api/crawl/demo-large/pages?cursor=2` });
      await withHostile(id, [{ method: 'GET', path: cmd.path(id), fault: { kind: 'respond', status: 200, body } }], async (url) => {
        const r = await runCommand(cmd, id, url);
        checkOutcome(expect, r, { code: 1, ndjson: true, message: /refusing to follow the next page link to another origin.*wrote 2 records/, withinMs: 0 }, [id.key]);
        expect(ndjson(r.stdout)).toEqual([{ url: 'a' }, { url: 'b' }]);
        expect(elsewhere.seen).toHaveLength(0);
      });
    } finally {
      await elsewhere.close();
    }
  });
});

describe.concurrent('links that are not URLs', () => {
  it('a redirect to something that does not parse as a URL: malformed, exit 1', async ({ expect }) => {
    const cmd = command('job status');
    const id = identity(fx.sandbox);
    await withHostile(id, [{ method: 'GET', path: cmd.path(id), fault: { kind: 'redirect', location: 'http://[bad/' } }], async (url) => {
      const r = await runCommand(cmd, id, url);
      checkOutcome(expect, r, { code: 1, message: /the service redirected \(HTTP 302\) to "http:\/\/\[bad\/", which is not a valid URL/, withinMs: 0 }, [id.key]);
    });
  });

  it('a next page link that does not parse: malformed, after the records before it', async ({ expect }) => {
    const cmd = command('job pages');
    const id = identity(fx.sandbox);
    const body = JSON.stringify({ pages: [{ url: 'a' }], next: 'http://[bad' });
    await withHostile(id, [{ method: 'GET', path: cmd.path(id), fault: { kind: 'respond', status: 200, body } }], async (url) => {
      const r = await runCommand(cmd, id, url);
      checkOutcome(expect, r, { code: 1, ndjson: true, message: /sent a link to "http:\/\/\[bad", which is not a valid URL \(wrote 1 record before the failure\)/, withinMs: 0 }, [id.key]);
      expect(ndjson(r.stdout)).toEqual([{ url: 'a' }]);
    });
  });
});

describe.concurrent('bodies larger than any real one (the size caps)', () => {
  it('9 MiB streamed without a length: refused once the 8 MiB cap of a parsed body is passed, exit 1, not retried', async ({ expect }) => {
    const cmd = command('job status');
    const id = identity(fx.sandbox);
    await withHostile(id, [{ method: 'GET', path: cmd.path(id), fault: { kind: 'flood', bytes: 9 * 1024 * 1024 } }], async (url, hostile) => {
      const r = await runCommand(cmd, id, url);
      // One attempt (not retried), so nothing waited on the clock; the --timeout of 5 s is never reached.
      checkOutcome(expect, r, { code: 1, message: /larger than 8 MiB; refusing to read it/, withinMs: 0, retries: { count: 0 } }, [id.key]);
      expect(hostile.count('GET', cmd.path(id))).toBe(1);
    });
  });

  it('a Content-Length past the 32 MiB cap of a batch of pages: refused before reading, exit 1', async ({ expect }) => {
    const cmd = command('job pages');
    const id = identity(fx.sandbox);
    const fault: Fault = { kind: 'respond', status: 200, headers: { 'content-length': String(200 * 1024 * 1024) }, body: '{"pages":[' };
    await withHostile(id, [{ method: 'GET', path: cmd.path(id), fault }], async (url) => {
      // Waiting for the 200 MiB it was promised would never end here (the --timeout passes only when
      // the test lets it): the run's hang guard would fail it, as `timedOut`.
      const r = await runCommand(cmd, id, url);
      checkOutcome(expect, r, { code: 1, message: /larger than 32 MiB; refusing to read it/, withinMs: 0 }, [id.key]);
    });
  });
});

describe.concurrent('a 2xx too large to read, in answer to a POST', () => {
  it('keys create: refused unread, and the message says a key may exist', async ({ expect }) => {
    const cmd = command('keys create');
    const id = identity(fx.sandbox);
    const fault: Fault = { kind: 'respond', status: 201, headers: { 'content-length': String(200 * 1024 * 1024) }, body: '{"key":"' };
    await withHostile(id, [{ method: 'POST', path: cmd.path(id), fault }], async (url, hostile) => {
      const r = await runCommand(cmd, id, url);
      checkOutcome(expect, r, { code: 1, message: /\(HTTP 201\) is larger than 8 MiB; refusing to read it; a key may have been created/, withinMs: 0 }, [id.key]);
      expect(r.stderr).toMatch(/^hint: check with `crawl keys list`/m);
      expect(hostile.count('POST', cmd.path(id))).toBe(1);
    });
  });
});

describe.concurrent('a 2xx too large to read, in answer to a DELETE', () => {
  it('job cancel: refused unread, and the message says the cancellation may have happened', async ({ expect }) => {
    const cmd = command('job cancel');
    const id = identity(fx.sandbox);
    const fault: Fault = { kind: 'respond', status: 200, headers: { 'content-length': String(200 * 1024 * 1024) }, body: '{"job":' };
    await withHostile(id, [{ method: 'DELETE', path: cmd.path(id), fault }], async (url, hostile) => {
      const r = await runCommand(cmd, id, url);
      checkOutcome(expect, r, { code: 1, message: /\(HTTP 200\) is larger than 8 MiB; refusing to read it/, withinMs: 0 }, [id.key]);
      expect(r.stderr).toMatch(/^hint: the cancellation may have reached the service: check with `crawl job status /m);
      expect(hostile.count('DELETE', cmd.path(id))).toBe(1);
    });
  });
});

describe.concurrent('job watch and Retry-After', () => {
  it('waits at least as long as a 429 asks before polling again', async ({ expect }) => {
    const cmd = command('job watch');
    const id = identity(fx.sandbox);
    fx.sandbox.addJob({ id: id.jobId, status: 'completed', pagesTotal: 3 });
    const fault: Fault = { kind: 'respond', status: 429, headers: { 'retry-after': '2' }, body: '{"error":"slow down"}' };
    // The proxy stamps each poll with the run's virtual time: the gap between them is what the watch waited.
    const clock = fakeClock();
    await withHostile(
      id,
      [{ method: 'GET', path: cmd.path(id), times: 1, fault }],
      async (url, hostile) => {
        const r = await runCommand({ ...cmd, argv: (i) => ['job', 'watch', i.jobId, '--interval', '0.5'] }, id, url, { clock });
        checkClean(expect, r, { code: 0, withinMs: 2000 }, [id.key]);
        expect(r.stderr).toMatch(/crawl: warning: .*HTTP 429: slow down; retrying in 2 s/);
        const polls = hostile.seen.filter((s) => cmd.path(id).test(s.url));
        expect(polls.length).toBe(2);
        expect((polls[1]?.at ?? 0) - (polls[0]?.at ?? 0)).toBeGreaterThanOrEqual(2000);
        expect(r.clock.sleeps).toEqual([2000]);
      },
      { clock },
    );
  });
});

describe.concurrent('answers that are not HTTP', () => {
  const cases: Array<[string, string, string, RegExp]> = [
    ['job status', 'another kind of server (an SSH banner)', 'SSH-2.0-OpenSSH_9.6\r\n', /the answer is not valid HTTP: GET /],
    ['keys create', 'another kind of server (an SSH banner)', 'SSH-2.0-OpenSSH_9.6\r\n', /the answer is not valid HTTP: POST .*; a key may have been created/],
    ['job status', 'headers of 70 KB', `HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Big: ${'a'.repeat(70_000)}\r\n\r\n{}`, /response headers too large to read/],
    ['job status', 'a broken chunked body', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nZZZ\r\nabc\r\n', /the answer is not valid HTTP \(invalid character in chunk size\)/],
  ];
  it.for(cases)('%s: %s', async ([name, , bytes, message], { expect }) => {
    const cmd = command(name);
    const id = identity(fx.sandbox);
    await withHostile(id, [{ method: cmd.method, path: cmd.path(id), fault: { kind: 'raw', bytes } }], async (url, hostile) => {
      const r = await runCommand(cmd, id, url);
      const attempts = cmd.method === 'GET' ? GET_ATTEMPTS : 1;
      checkOutcome(expect, r, { code: 5, message, withinMs: attempts > 1 ? MAX_BACKOFF_MS : 0, retries: { count: attempts - 1 } }, [id.key]);
      expect(hostile.count(cmd.method, cmd.path(id))).toBe(attempts);
    });
  });

  it('https:// to a port that speaks plain HTTP: a TLS error that says what to check, at once (it would be the same on every attempt)', async ({ expect }) => {
    const cmd = command('job status');
    const id = identity(fx.sandbox);
    await withHostile(id, [], async (url) => {
      const r = await runCommand(cmd, id, url.replace('http:', 'https:'));
      checkOutcome(expect, r, { code: 5, message: /TLS error \(ERR_SSL_WRONG_VERSION_NUMBER\)/, withinMs: 0, retries: { count: 0 } }, [id.key]);
      expect(r.stderr).toMatch(/^hint: the server does not seem to speak TLS on that port/m);
    });
  });
});

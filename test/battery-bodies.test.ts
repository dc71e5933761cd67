// What a 200 can carry that it should not, and the other ways a server can lead the client astray:
// bodies of the wrong shape or type, unknown statuses and fields (shown or passed through, never
// rejected), bytes that are not UTF-8, bodies past the 64 MiB cap, the Authorization header echoed
// back (in an error and in a job), redirect loops, redirects and `next` links to another origin,
// and a watch told by Retry-After how long to wait.
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, it, vi } from 'vitest';
import {
  checkClean,
  checkOutcome,
  command,
  COMMANDS,
  identity,
  MAX_WAIT_S,
  runCommand,
  SAFE_TIMEOUT_S,
  SLACK_MS,
  type Identity,
} from './helpers/battery.js';
import { ndjson } from './helpers/cli.js';
import { startHostile, type Body, type Fault, type Rule } from './helpers/hostile-server.js';
import { sandboxFixture, type SandboxFixture } from './helpers/sandbox.js';

vi.setConfig({ maxConcurrency: 8 });

let fx: SandboxFixture;
beforeAll(async () => {
  fx = await sandboxFixture();
});
afterAll(() => fx.close());

const bearer = (req: IncomingMessage): string => String(req.headers.authorization ?? '');

function job(fields: Record<string, unknown> = {}, top: Record<string, unknown> = {}): string {
  return JSON.stringify({
    success: true,
    job: { id: 'demo-small', url: 'https://example.com/', status: 'completed', pagesTotal: 2, pagesFinished: 2, creditsUsed: 2, createdAt: '2026-01-01T00:00:00Z', ...fields },
    pages: [],
    ...top,
  });
}

/** `prefix`, three bytes that are not UTF-8, then `suffix`. */
const notUtf8 = (prefix: string, suffix: string): Buffer => Buffer.concat([Buffer.from(prefix), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from(suffix)]);

interface ShapeRow {
  cmd: string;
  name: string;
  body: Body;
  code: number;
  /** For failures: the error line. */
  message?: RegExp;
  /** For successes: what stdout shows. */
  shows?: RegExp;
  json?: boolean;
}

const SHAPES: ShapeRow[] = [
  // job status: what it cannot show is malformed (exit 1); whatever it can show, it shows.
  { cmd: 'job status', name: 'truncated JSON', body: '{"success":true,"job":{"id":"demo-small","sta', code: 1, message: /malformed response .*not valid JSON/ },
  { cmd: 'job status', name: 'a JSON array', body: '[{"success":true}]', code: 1, message: /malformed response .*expected a JSON object/ },
  { cmd: 'job status', name: 'a JSON string', body: '"completed"', code: 1, message: /malformed response .*expected a JSON object/ },
  { cmd: 'job status', name: 'job null', body: '{"success":true,"job":null,"pages":null}', code: 1, message: /malformed response .*no "job" object/ },
  { cmd: 'job status', name: 'status a number', body: job({ status: 3 }), code: 1, message: /malformed response .*no "status" string/ },
  {
    cmd: 'job status',
    name: 'fields of the wrong type',
    body: job({ pagesTotal: '12', pagesFinished: { done: 3 }, creditsUsed: [1], createdAt: 5, url: null }, { pages: { a: 1 } }),
    code: 0,
    shows: /^pagesTotal\t12$/m,
  },
  {
    cmd: 'job status',
    name: 'an unknown status and unknown fields',
    body: job({ status: 'paused', region: 'eu-west', nested: { x: 1 } }, { meta: { v: 2 } }),
    code: 0,
    shows: /^status\tpaused\n[\s\S]*^region\teu-west$/m,
  },
  { cmd: 'job status', name: 'invalid UTF-8', body: notUtf8('{"success":true,"job":{"id":"demo-small","status":"completed","url":"https://ex.com/', '"}}'), code: 0, shows: /^url\thttps:\/\/ex\.com\/\uFFFD+$/m },
  {
    cmd: 'job status',
    name: 'unknown fields, --json passes the body through',
    body: job({ status: 'paused', region: 'eu-west' }, { meta: { v: 2 } }),
    code: 0,
    json: true,
    shows: new RegExp(`^${job({ status: 'paused', region: 'eu-west' }, { meta: { v: 2 } }).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\n$`),
  },
  { cmd: 'job status', name: 'invalid UTF-8, --json', body: notUtf8('{"success":true,"job":{"id":"demo-small","status":"completed","url":"', '"}}'), code: 0, json: true, shows: /\uFFFD/ },
  // job watch: an unknown status is not terminal, so it is watched (shown) until --max-wait.
  { cmd: 'job watch', name: 'an unknown status', body: job({ status: 'paused' }), code: 7, message: /gave up waiting: the job is still paused/ },
  { cmd: 'job watch', name: 'truncated JSON', body: '{"success":true,"job":{', code: 1, message: /malformed response .*not valid JSON/ },
  // job cancel: the DELETE's body is not documented; one that is not a job is read again with a GET.
  { cmd: 'job cancel', name: 'truncated JSON from the DELETE', body: '{"success":tr', code: 0, shows: /^status\trunning$/m },
  { cmd: 'job cancel', name: 'a JSON array from the DELETE', body: '[1,2]', code: 0, shows: /^status\trunning$/m },
  // job pages: a batch that is not records is malformed, after what was written.
  { cmd: 'job pages', name: 'truncated JSON', body: '{"pages":[{"url":"a"}', code: 1, message: /malformed response .*not valid JSON.*wrote 0 records/ },
  { cmd: 'job pages', name: 'a JSON array', body: '[{"url":"a"}]', code: 1, message: /malformed response .*expected a JSON object/ },
  { cmd: 'job pages', name: 'a JSON string', body: '"pages"', code: 1, message: /malformed response .*expected a JSON object/ },
  { cmd: 'job pages', name: 'pages an object', body: '{"pages":{"url":"a"},"next":null}', code: 1, message: /"pages" is an object, not an array/ },
  {
    cmd: 'job pages',
    name: 'records with unknown fields and invalid UTF-8',
    body: notUtf8('{"pages":[{"url":"a","lang":{"x":1}},{"url":"b', '","extra":true}],"next":null,"cost":3}'),
    code: 0,
    json: true,
    shows: /^\{"url":"a","lang":\{"x":1\}\}\n\{"url":"b\uFFFD+","extra":true\}\n$/,
  },
  // keys: the list must be an array of keys; what is in a key is shown as it is.
  { cmd: 'keys list', name: 'truncated JSON', body: '{"success":true,"keys":[{"id":"k', code: 1, message: /malformed response .*not valid JSON/ },
  { cmd: 'keys list', name: 'a JSON array', body: '[]', code: 1, message: /malformed response .*expected a JSON object/ },
  { cmd: 'keys list', name: 'keys an object', body: '{"success":true,"keys":{"id":"k1"}}', code: 1, message: /malformed response .*no "keys" array/ },
  {
    cmd: 'keys list',
    name: 'fields of the wrong type',
    body: '{"success":true,"keys":[{"id":5},{"id":"k1","name":{"a":1},"keyPrefix":7,"lastUsedAt":5,"createdAt":null,"scopes":["x"]}]}',
    code: 0,
    shows: /^k1\t\{"a":1\}\t7\t\t\tfalse\n$/,
  },
  { cmd: 'keys create', name: 'truncated JSON', body: '{"success":true,"key":"crk_', code: 1, message: /malformed response .*a key may have been created/ },
  { cmd: 'keys create', name: 'no key', body: '{"success":true,"name":"battery"}', code: 1, message: /no key in the body; a key may have been created/ },
  { cmd: 'keys create', name: 'the key a number', body: '{"success":true,"key":12345}', code: 1, message: /no key in the body/ },
  {
    cmd: 'keys create',
    name: 'unknown fields',
    body: '{"success":true,"key":"crk_NEWNEWNEWNEWNEWNEWNEW1","prefix":"crk_NEWN","name":"battery","warning":"keep it","scope":"all"}',
    code: 0,
    shows: /^crk_NEWNEWNEWNEWNEWNEWNEW1\n$/,
  },
  // An HTML page with 200 at the API's path: the base URL names a web site, not the service.
  { cmd: 'auth login', name: 'a web page instead of the API', body: '<!doctype html><html><body>Welcome</body></html>', code: 1, message: /malformed response .*not valid JSON but an HTML page/ },
  { cmd: 'auth status', name: 'a web page instead of the API', body: '<!doctype html><html><body>Welcome</body></html>', code: 1, message: /malformed response .*not valid JSON but an HTML page/ },
];

/** No case here retries for long: a watch's --max-wait is the longest any of them may take. */
const BOUND_MS = MAX_WAIT_S * 1000;

async function withHostile<T>(id: Identity, rules: Rule[], run: (url: string, hostile: Awaited<ReturnType<typeof startHostile>>) => Promise<T>): Promise<T> {
  const hostile = await startHostile({ upstream: fx.sandbox.url, rules });
  try {
    return await run(hostile.url, hostile);
  } finally {
    await hostile.close();
    id.cleanup();
  }
}

describe.concurrent('200 with a body of the wrong shape', () => {
  it.for(SHAPES.map((row) => [row.cmd, row.name, row] as const))('%s: %s', async ([name, , row], { expect }) => {
    const cmd = command(name);
    const id = identity(fx.sandbox);
    const fault: Fault = { kind: 'respond', status: 200, body: row.body };
    await withHostile(id, [{ method: cmd.method, path: cmd.path(id), fault }], async (url, hostile) => {
      const r = await runCommand(cmd, id, url, { extra: row.json ? ['--json'] : [] });
      const from = hostile.seen[0]?.at;
      if (row.message) {
        // Machine output stays machine output even when the export fails midway.
        checkOutcome(expect, r, { code: row.code, message: row.message, ndjson: name === 'job pages', withinMs: BOUND_MS, from }, [id.key]);
      } else {
        checkClean(expect, r, { code: row.code, json: row.json ?? name === 'job pages', withinMs: BOUND_MS, from }, [id.key]);
        expect(r.stdout).toMatch(row.shows ?? /./);
      }
    });
  });
});

describe.concurrent('a server that echoes the Authorization header', () => {
  // Rejected keys with the header in the error body, every command, with the --verbose trace.
  it.for(COMMANDS.map((c) => [c.name, c] as const))('%s --verbose: a 401 that echoes it', async ([, cmd], { expect }) => {
    const id = identity(fx.sandbox);
    const fault: Fault = { kind: 'respond', status: 401, body: (req) => JSON.stringify({ error: `bad key ${bearer(req)}`, got: req.headers }) };
    await withHostile(id, [{ method: cmd.method, path: cmd.path(id), fault }], async (url, hostile) => {
      const r = await runCommand(cmd, id, url, { extra: ['--verbose'] });
      checkClean(expect, r, { code: 4, verbose: true, withinMs: BOUND_MS, from: hostile.seen[0]?.at }, [id.key]);
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
      await withHostile(id, [{ method: cmd.method, path: cmd.path(id), fault: { kind: 'respond', status: 200, body } }], async (url, hostile) => {
        const r = await runCommand(cmd, id, url, { extra });
        checkClean(expect, r, { code, json: extra.includes('--json') || name === 'job pages', withinMs: BOUND_MS, from: hostile.seen[0]?.at }, [id.key]);
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
      checkOutcome(expect, r, { code: 1, message: /too many redirects/, withinMs: 0, from: hostile.seen[0]?.at }, [id.key]);
      expect(hostile.count('GET', /^\/api\/crawl\/demo-small$/)).toBe(6);
    });
  });

  it('a redirect to another origin is followed without the key', async ({ expect }) => {
    const cmd = command('job status');
    const id = identity(fx.sandbox);
    const elsewhere = await startHostile({ rules: [{ fault: { kind: 'respond', status: 200, body: job({ id: 'moved' }) } }] });
    try {
      const fault: Fault = { kind: 'redirect', status: 307, location: `${elsewhere.url}/api/crawl/demo-small` };
      await withHostile(id, [{ method: 'GET', path: cmd.path(id), fault }], async (url, hostile) => {
        const r = await runCommand(cmd, id, url);
        checkClean(expect, r, { code: 0, withinMs: 0, from: hostile.seen[0]?.at }, [id.key]);
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
      checkOutcome(expect, r, { code: 1, message: /unexpected redirect \(HTTP 307\).*not followed/, withinMs: 0, from: hostile.seen[0]?.at }, [id.key]);
      expect(hostile.seen.map((s) => `${s.method} ${s.url}`)).toEqual(['POST /api/keys']);
    });
  });

  it('a next page link to another origin is refused, after writing the records before it', async ({ expect }) => {
    const cmd = command('job pages');
    const id = identity(fx.sandbox);
    const elsewhere = await startHostile({ rules: [{ fault: { kind: 'respond', status: 200, body: '{"pages":[],"next":null}' } }] });
    try {
      const body = JSON.stringify({ pages: [{ url: 'a' }, { url: 'b' }], next: `${elsewhere.url}/api/crawl/demo-large/pages?cursor=2` });
      await withHostile(id, [{ method: 'GET', path: cmd.path(id), fault: { kind: 'respond', status: 200, body } }], async (url, hostile) => {
        const r = await runCommand(cmd, id, url);
        const from = hostile.seen[0]?.at;
        checkOutcome(expect, r, { code: 1, ndjson: true, message: /refusing to follow the next page link to another origin.*wrote 2 records/, withinMs: 0, from }, [id.key]);
        expect(ndjson(r.stdout)).toEqual([{ url: 'a' }, { url: 'b' }]);
        expect(elsewhere.seen).toHaveLength(0);
      });
    } finally {
      await elsewhere.close();
    }
  });
});

describe.concurrent('bodies larger than any real one (the 64 MiB cap)', () => {
  it('65 MiB streamed without a length: refused once the cap is passed, exit 1, not retried', async ({ expect }) => {
    const cmd = command('job status');
    const id = identity(fx.sandbox);
    await withHostile(id, [{ method: 'GET', path: cmd.path(id), fault: { kind: 'flood', bytes: 65 * 1024 * 1024 } }], async (url, hostile) => {
      const r = await runCommand(cmd, id, url);
      // Bounded by the one attempt's --timeout: on an idle machine it takes under a second.
      checkOutcome(expect, r, { code: 1, message: /larger than 64 MiB; refusing to read it/, withinMs: SAFE_TIMEOUT_S * 1000, from: hostile.seen[0]?.at }, [id.key]);
      expect(hostile.count('GET', cmd.path(id))).toBe(1);
    });
  });

  it('a Content-Length past the cap: refused before reading, exit 1', async ({ expect }) => {
    const cmd = command('job pages');
    const id = identity(fx.sandbox);
    const fault: Fault = { kind: 'respond', status: 200, headers: { 'content-length': String(200 * 1024 * 1024) }, body: '{"pages":[' };
    await withHostile(id, [{ method: 'GET', path: cmd.path(id), fault }], async (url, hostile) => {
      // A --timeout longer than the bound: waiting for the 200 MiB it was promised would fail the bound.
      const r = await runCommand(cmd, id, url, { timeoutS: 4 * SLACK_MS / 1000 });
      checkOutcome(expect, r, { code: 1, message: /larger than 64 MiB; refusing to read it/, withinMs: 0, from: hostile.seen[0]?.at }, [id.key]);
    });
  });
});

describe.concurrent('job watch and Retry-After', () => {
  it('waits at least as long as a 429 asks before polling again', async ({ expect }) => {
    const cmd = command('job watch');
    const id = identity(fx.sandbox);
    fx.sandbox.addJob({ id: id.jobId, status: 'completed', pagesTotal: 3 });
    const fault: Fault = { kind: 'respond', status: 429, headers: { 'retry-after': '2' }, body: '{"error":"slow down"}' };
    await withHostile(id, [{ method: 'GET', path: cmd.path(id), times: 1, fault }], async (url, hostile) => {
      const r = await runCommand({ ...cmd, argv: (i) => ['job', 'watch', i.jobId, '--interval', '0.1'] }, id, url);
      checkClean(expect, r, { code: 0, withinMs: 2000, from: hostile.seen[0]?.at }, [id.key]);
      expect(r.stderr).toMatch(/crawl: warning: .*HTTP 429: slow down; retrying in 2 s/);
      const polls = hostile.seen.filter((s) => cmd.path(id).test(s.url));
      expect(polls.length).toBe(2);
      expect((polls[1]?.at ?? 0) - (polls[0]?.at ?? 0)).toBeGreaterThanOrEqual(1950);
    });
  });
});

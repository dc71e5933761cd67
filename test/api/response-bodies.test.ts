// What a 200 can carry that it should not: bodies of the wrong shape or type, unknown statuses and
// fields (shown or passed through, never rejected), bytes that are not UTF-8, a web page where the
// API should be. The other ways a server can lead the client astray are in test/http/hostile-server.test.ts.
import { afterAll, beforeAll, describe, it, vi } from 'vitest';
import { checkClean, checkOutcome, command, identity, job, MAX_WAIT_S, runCommand, withHostile } from '../support/battery.js';
import type { Body, Fault } from '../support/hostile-server.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';

vi.setConfig({ maxConcurrency: 10 });

let fx: SandboxFixture;
beforeAll(async () => {
  fx = await sandboxFixture();
});
afterAll(() => fx.close());

/** `prefix`, three bytes that are not UTF-8, then `suffix`. */
const notUtf8 = (prefix: string, suffix: string): Buffer => Buffer.concat([Buffer.from(prefix), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from(suffix)]);

/** JSON nested `depth` deep around `inner`: thousands deep overflows a recursive walk's stack. */
const deep = (depth: number, inner = '"x"'): string => '{"error":'.repeat(depth) + inner + '}'.repeat(depth);
const DEEP = 20_000;

interface ShapeRow {
  cmd: string;
  name: string;
  /** Default 200. */
  status?: number;
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
  // Nested thousands deep: every walk over it (messages, display, NDJSON) must not overflow.
  { cmd: 'job status', name: 'an error body nested 20000 deep', status: 500, body: deep(DEEP), code: 1, message: /HTTP 500$/ },
  { cmd: 'job status', name: 'a field nested 20000 deep', body: job({ url: 'DEEP' }).replace('"DEEP"', deep(DEEP)), code: 0, shows: /^url\t\(too deeply nested to show\)$/m },
  {
    cmd: 'keys list',
    name: 'a key name nested 20000 deep',
    body: `{"success":true,"keys":[{"id":"k1","name":${deep(DEEP)},"keyPrefix":"crk_x"}]}`,
    code: 0,
    shows: /^k1\t\(too deeply nested to show\)\tcrk_x\t/m,
  },
  {
    // Records are passed through as text, never parsed: any depth is written as it came.
    cmd: 'job pages',
    name: 'a record nested 20000 deep',
    body: `{"pages":[{"url":"a"},${deep(DEEP)}],"next":null}`,
    code: 0,
    json: true,
    shows: new RegExp(`^\\{"url":"a"\\}\\n(\\{"error":){${DEEP}}"x"\\}{${DEEP}}\\n$`),
  },
  {
    cmd: 'job watch',
    name: 'a pretty-printed body nested 20000 deep, --json: one line, digits kept',
    body: job({ status: 'completed', big: 'BIG', extra: 'DEEP' }).replace('"BIG"', '12345678901234567890').replace('"DEEP"', '[\n'.repeat(DEEP) + ']'.repeat(DEEP)),
    code: 0,
    json: true,
    shows: /^\{"success":true,"job":\{.*"big":12345678901234567890,"extra":\[\[\[.*\]\]\]\},"pages":\[\]\}\n$/,
  },
  // An HTML page with 200 at the API's path: the base URL names a web site, not the service.
  { cmd: 'auth login', name: 'a web page instead of the API', body: '<!doctype html><html><body>Welcome</body></html>', code: 1, message: /malformed response .*not valid JSON but an HTML page/ },
  { cmd: 'auth status', name: 'a web page instead of the API', body: '<!doctype html><html><body>Welcome</body></html>', code: 1, message: /malformed response .*not valid JSON but an HTML page/ },
];

/** No case here retries for long: a watch's --max-wait (on its clock) is the longest any of them may wait. */
const BOUND_MS = MAX_WAIT_S * 1000;

describe.concurrent('200 with a body of the wrong shape', () => {
  it.for(SHAPES.map((row) => [row.cmd, row.name, row] as const))('%s: %s', async ([name, , row], { expect }) => {
    const cmd = command(name);
    const id = identity(fx.sandbox);
    const fault: Fault = { kind: 'respond', status: row.status ?? 200, body: row.body };
    await withHostile(id, [{ method: cmd.method, path: cmd.path(id), fault }], async (url) => {
      const r = await runCommand(cmd, id, url, { extra: row.json ? ['--json'] : [] });
      // A watch of a job that never ends gives up at --max-wait, on its clock.
      const waits = { withinMs: BOUND_MS, ...(row.code === 7 ? { gaveUpAtMs: BOUND_MS } : {}) };
      if (row.message) {
        // Machine output stays machine output even when the export fails midway.
        checkOutcome(expect, r, { code: row.code, message: row.message, ndjson: name === 'job pages', ...waits }, [id.key]);
      } else {
        checkClean(expect, r, { code: row.code, json: row.json ?? name === 'job pages', ...waits }, [id.key]);
        expect(r.stdout).toMatch(row.shows ?? /./);
      }
    });
  });
});

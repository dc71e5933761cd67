// `--jq <filter>`: real jq (1.8, WebAssembly) on every JSON output, in this process. The table's
// expected outputs are written from jq's manual (jq 1.7+: number literals keep their text), as
// `jq -r` prints them: strings raw, other values compact JSON, one a line.
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findKey } from './helpers/key-forms.js';
import { listenOnLoopback, type OnLoopback } from './helpers/loopback.js';
import { sandboxFixture, type SandboxFixture } from './helpers/sandbox.js';
import { crawl } from './support/harness.js';

let fx: SandboxFixture;
let server: OnLoopback;
const KEY = 'crk_' + 'JqTestKey0123456789abcdefgh';

/** Bodies served as they are, by path: what `crawl api <path> --jq` filters. */
const BODIES: Record<string, string> = {
  '/object': '{"b":2,"a":{"c":"x"},"n":null,"f":false}',
  '/literals': '{"one":1.0,"big":18446744073709551616,"small":1e-7}',
  '/array': '[1,"two",{"three":3},null]',
  '/strings': '{"nl":"x\\n","tab":"a\\tb","uni":"é😀","quote":"say \\"hi\\""}',
  '/rows': '[["a","b c",1,null],[true,"d\\"e"]]',
  '/pretty': '{\n  "a": [\n    1,\n    2\n  ]\n}\n',
  '/notjson': 'OK',
};

beforeAll(async () => {
  fx = await sandboxFixture();
  server = await listenOnLoopback(
    createServer((req, res) => {
      const body = BODIES[req.url ?? ''];
      res.writeHead(body === undefined ? 404 : 200, { 'content-type': body === '/notjson' ? 'text/plain' : 'application/json' });
      res.end(body ?? '{"error":"not found"}');
    }),
  );
});
afterAll(async () => {
  await server.close();
  await fx.close();
});

const local = { CRAWL_BASE_URL: '', CRAWL_API_KEY: KEY };
function api(path: string, filter: string): ReturnType<typeof crawl> {
  return crawl(['api', path, '--jq', filter], { env: { ...local, CRAWL_BASE_URL: server.url } });
}

describe('a table of filters, against the outputs jq -r gives', () => {
  const table: [string, string, string][] = [
    ['/object', '.', '{"b":2,"a":{"c":"x"},"n":null,"f":false}\n'],
    ['/object', '.a.c', 'x\n'],
    ['/object', 'keys', '["a","b","f","n"]\n'],
    ['/object', 'keys_unsorted', '["b","a","n","f"]\n'],
    ['/object', '.n // "default"', 'default\n'],
    ['/object', '.f // "default"', 'default\n'],
    ['/object', '.b // "default"', '2\n'],
    ['/object', 'to_entries | map(.key) | join(",")', 'b,a,n,f\n'],
    ['/object', 'has("a"), has("z")', 'true\nfalse\n'],
    ['/object', 'empty', ''],
    // jq 1.8 keeps a literal's digits, written in decNumber's canonical form (1e-7 as 1E-7).
    ['/literals', '.', '{"one":1.0,"big":18446744073709551616,"small":1E-7}\n'],
    ['/literals', '.one, .big', '1.0\n18446744073709551616\n'],
    ['/literals', '.one + 1', '2\n'],
    ['/array', '.[]', '1\ntwo\n{"three":3}\nnull\n'],
    ['/array', 'map(select(type == "number"))', '[1]\n'],
    ['/array', 'length', '4\n'],
    ['/array', '.[1:3]', '["two",{"three":3}]\n'],
    ['/strings', '.nl', 'x\n\n'],
    ['/strings', '.tab', 'a\tb\n'],
    ['/strings', '.uni, (.uni | length), (.uni | utf8bytelength)', 'é😀\n2\n6\n'],
    ['/strings', '.quote', 'say "hi"\n'],
    ['/strings', '.quote | @json', '"say \\"hi\\""\n'],
    ['/strings', '.uni | @base64', 'w6nwn5iA\n'],
    ['/strings', '.quote | @sh', "'say \"hi\"'\n"],
    ['/strings', '.tab | @uri', 'a%09b\n'],
    ['/rows', '.[] | @tsv', 'a\tb c\t1\t\ntrue\td"e\n'],
    ['/rows', '.[] | @csv', '"a","b c",1,\ntrue,"d""e"\n'],
    ['/rows', '[.[][]] | map(tostring) | join("|")', 'a|b c|1|null|true|d"e\n'],
    ['/pretty', '.a', '[1,2]\n'],
    ['/pretty', '.a | add', '3\n'],
    ['/pretty', '[.a[] * 10] | @text', '[10,20]\n'],
    ['/object', '"\\(.a.c)-\\(.b)"', 'x-2\n'],
    ['/object', '[paths] | length', '5\n'],
    ['/object', 'with_entries(select(.value != null))', '{"b":2,"a":{"c":"x"},"f":false}\n'],
  ];
  it.each(table)('%s | jq -r %s', async (path, filter, expected) => {
    const r = await api(path, filter);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(expected);
    expect(r.code).toBe(0);
  });
});

describe('failures', () => {
  it('a filter that does not compile: exit 2 with jq\'s message, before any request', async () => {
    const before = fx.sandbox.requests.length;
    const r = await crawl(['job', 'demo-small', '--jq', '.job | {'], { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toMatchObject({ error: { exitCode: 2, message: expect.stringMatching(/^invalid --jq filter: syntax error, unexpected end of file/) } });
    expect(fx.sandbox.requests.length).toBe(before);
  });

  it('a runtime error: exit 1 with jq\'s message (no position in crawl\'s own input); a body that is not JSON is one', async () => {
    const r = await api('/object', '.a + 1');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toMatchObject({ error: { exitCode: 1, message: 'jq: error: object ({"c":"x"}) and number (1) cannot be added' } });
    const text = await api('/notjson', '.');
    expect(text.code).toBe(1);
    expect(JSON.parse(text.stderr).error.message).toMatch(/^jq: parse error: Invalid/);
  });

  it('what the filter prints on purpose (debug) goes to stderr, and its output still to stdout', async () => {
    const r = await api('/array', '.[0] | debug');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('1\n');
    expect(r.stderr).toBe('["DEBUG:",1]\n');
  });

  it('crawl completion with --jq is refused: a shell script is not JSON', async () => {
    const r = await crawl(['completion', 'bash', '--jq', '.'], { env: {} });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
  });

  it('-i with --jq is refused: the headers are not JSON', async () => {
    const r = await crawl(['api', '/object', '-i', '--jq', '.'], { env: { ...local, CRAWL_BASE_URL: server.url } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/-i prints the status and headers/);
  });
});

describe('streams: the filter runs on each value as it arrives', () => {
  it('job pages: a line for each record; a runtime error mid-stream keeps the lines before it, exit 1', async () => {
    fx.sandbox.addJob({ id: 'jq-pages', status: 'completed', pagesTotal: 2500 });
    const all = await crawl(['job', 'pages', 'jq-pages', '--jq', '.url'], { env: fx.env });
    expect(all.code).toBe(0);
    const urls = all.stdout.trimEnd().split('\n');
    expect(urls).toHaveLength(2500);
    expect(urls.every((u) => /^https?:\/\/\S+$/.test(u))).toBe(true);

    const filter = 'if input_line_number < 0 then . else . end | .url as $u | if ($u | endswith("/1500")) then error("stop at \\($u)") else $u end';
    const cut = await crawl(['job', 'pages', 'jq-pages', '--jq', filter], { env: fx.env });
    expect(cut.code).toBe(1);
    const lines = cut.stdout.trimEnd().split('\n');
    expect(lines).toEqual(urls.slice(0, lines.length));
    expect(lines.at(-1)).toMatch(/\/1499$/);
    expect(JSON.parse(cut.stderr).error.message).toMatch(/^jq: error: stop at \S+\/1500$/);
  });

  it('job watch --json: each change filtered as it is written', async () => {
    fx.sandbox.addJob({ id: 'jq-watch', status: 'running', pagesTotal: 30, pagesFinished: 0, advance: { perPoll: 10 } });
    const r = await crawl(['job', 'watch', 'jq-watch', '--jq', '"\\(.job.status) \\(.job.pagesFinished)"'], { env: fx.env });
    expect(r.stdout).toBe('running 10\nrunning 20\ncompleted 30\n');
    expect(r.code).toBe(0);
  });

  it('crawl api --paginate: each page filtered as it comes', async () => {
    const r = await crawl(['api', 'api/crawl/demo-large/pages?limit=100', '--paginate', '--jq', '.pages | length'], { env: fx.env });
    expect(r.stdout).toBe('100\n100\n50\n');
    expect(r.code).toBe(0);
  });

  it('job status with several ids: one value a line, each filtered', async () => {
    const r = await crawl(['job', 'status', 'demo-small', 'demo-errored', '--jq', '.job.id'], { env: fx.env });
    expect(r.stdout).toBe('demo-small\ndemo-errored\n');
  });
});

describe('keys: the full key only where the contract hands it over, and never lost to a filter', () => {
  it('keys list never shows a key, filtered or not; auth token hands it over; debug output is redacted', async () => {
    const list = await crawl(['keys', 'list', '--jq', '.'], { env: fx.env });
    expect(list.code).toBe(0);
    expect(findKey(list.stdout + list.stderr, fx.sandbox.key)).toBeUndefined();
    const token = await crawl(['auth', 'token', '--jq', '.apiKey | debug'], { env: fx.env });
    expect(token.stdout).toBe(`${fx.sandbox.key}\n`);
    expect(token.stderr).toBe('["DEBUG:","[redacted]"]\n');
  });

  it('keys create --jq .key hands the new key over; a filter that leaves it out says so', async () => {
    const made = await crawl(['keys', 'create', 'jq-made', '--jq', '.key'], { env: fx.env });
    expect(made.code).toBe(0);
    expect(made.stdout).toMatch(/^crk_\S+\n$/);
    const dropped = await crawl(['keys', 'create', 'jq-dropped', '--jq', '.name'], { env: fx.env });
    expect(dropped.stdout).toBe('jq-dropped\n');
    expect(dropped.stderr).toMatch(/warning: the --jq filter left the key out of what it printed/);
  });

  it('a filter that fails on the document holding the new key: the document goes out unfiltered, the error redacted', async () => {
    const r = await crawl(['keys', 'create', 'jq-fails', '--jq', 'error(.key)'], { env: fx.env });
    const doc = JSON.parse(r.stdout) as { key: string };
    expect(doc.key).toMatch(/^crk_/);
    expect(r.stderr).toBe('crawl: warning: jq: error: [redacted]: printed unfiltered, so that the key is not lost\n');
    expect(r.stderr).not.toContain(doc.key);
  });
});

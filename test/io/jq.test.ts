// `--jq <filter>`: real jq (1.8, WebAssembly) on every JSON output, in this process. The table's
// expected outputs are written from jq's manual (jq 1.7+: number literals keep their text), as
// `jq -r` prints them: strings raw, other values compact JSON, one a line.
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findKey } from '../support/key-forms.js';
import { keyStatus } from '../support/keys.js';
import { listenOnLoopback, type OnLoopback } from '../support/loopback.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';
import { crawl } from '../support/harness.js';

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
  // ESC ] 0 ; … BEL retitles a terminal, ESC [ 2 J clears it, U+202E reverses what follows.
  '/escapes': '{"name":"a\\u001b]0;title\\u0007b\\tc\\u001b[2J\\u202ed","two":"x\\ny"}',
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

describe("gh's short form", () => {
  it('-q is --jq, before or after the command, in its own word or the next', async () => {
    const long = await crawl(['job', 'demo-small', '--jq', '.job.status'], { env: fx.env });
    expect(long).toMatchObject({ code: 0, stdout: 'completed\n' });
    for (const args of [['job', 'demo-small', '-q', '.job.status'], ['-q', '.job.status', 'job', 'demo-small'], ['job', 'demo-small', '-q.job.status']]) {
      const r = await crawl(args, { env: fx.env });
      expect(r, args.join(' ')).toMatchObject({ code: 0, stdout: 'completed\n', stderr: '' });
    }
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

describe('halt and halt_error end crawl as they end jq', () => {
  it('halt_error: its message on stderr, its exit code (5 when it gives none), no crawl: line', async () => {
    const five = await crawl(['job', 'demo-small', '--jq', '.job.id | halt_error'], { env: fx.env });
    expect({ code: five.code, stdout: five.stdout, stderr: five.stderr }).toEqual({ code: 5, stdout: '', stderr: 'demo-small\n' });
    const three = await crawl(['job', 'demo-small', '--jq', '"not done: \\(.job.status)\\n" | halt_error(3)'], { env: fx.env });
    expect({ code: three.code, stdout: three.stdout, stderr: three.stderr }).toEqual({ code: 3, stdout: '', stderr: 'not done: completed\n' });
    const object = await crawl(['job', 'demo-small', '--jq', '{id: .job.id} | halt_error(0)'], { env: fx.env });
    expect({ code: object.code, stderr: object.stderr }).toEqual({ code: 0, stderr: '{"id":"demo-small"}\n' });
  });

  it('its message cannot act on a terminal: control characters are dropped, line breaks kept', async () => {
    const r = await crawl(['job', 'demo-small', '--jq', '"a\\u001b]0;title\\u0007\\nb" | halt_error(1)'], { env: fx.env });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('a]0;title\nb\n');
  });

  it('job pages: halt_error mid-stream keeps the records before it, and no page after it is asked for', async () => {
    fx.sandbox.addJob({ id: 'jq-halt', status: 'completed', pagesTotal: 10_000 });
    const filter = 'if (.url | endswith("/1500")) then "stop at \\(.url)" | halt_error(4) else .url end';
    const before = fx.sandbox.requests.length;
    const r = await crawl(['job', 'pages', 'jq-halt', '--jq', filter], { env: fx.env });
    expect(r.code).toBe(4);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1499);
    expect(lines.at(-1)).toMatch(/\/1499$/);
    expect(r.stderr).toMatch(/^stop at \S+\/1500\n$/);
    // The batch holding 1500, and at most the one read ahead while it was written: not the ten.
    const pageRequests = fx.sandbox.requests.slice(before).filter((q) => q.url.includes('/jq-halt/pages'));
    expect(pageRequests.length).toBeLessThanOrEqual(3);
  });

  it('job pages: halt stops the export with exit 0 after the records before it', async () => {
    fx.sandbox.addJob({ id: 'jq-halt0', status: 'completed', pagesTotal: 2500 });
    const r = await crawl(['job', 'pages', 'jq-halt0', '--jq', 'if (.url | endswith("/7")) then halt else .url end'], { env: fx.env });
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(6);
  });

  it('job watch --json: halt_error on a state ends the watch with its code', async () => {
    fx.sandbox.addJob({ id: 'jq-watch-halt', status: 'running', pagesTotal: 30, pagesFinished: 0, advance: { perPoll: 10 } });
    const r = await crawl(['job', 'watch', 'jq-watch-halt', '--jq', 'if .job.pagesFinished >= 20 then "at 20" | halt_error(9) else .job.pagesFinished end'], { env: fx.env });
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 9, stdout: '10\n', stderr: 'at 20\n' });
  });

  it('job watch and job status of several jobs: a halt ends them all, with its code; an error too, exit 1', async () => {
    const filter = (stop: string): string => `if .job.id == "demo-small" then ${stop} else .job.id end`;
    const watched = await crawl(['job', 'watch', 'demo-small', 'demo-errored', '--jq', filter('"x" | halt_error(3)')], { env: fx.env });
    expect({ code: watched.code, stdout: watched.stdout, stderr: watched.stderr }).toEqual({ code: 3, stdout: '', stderr: 'x\n' });
    const read = await crawl(['job', 'status', 'demo-small', 'demo-errored', '--jq', filter('halt')], { env: fx.env });
    expect({ code: read.code, stdout: read.stdout, stderr: read.stderr }).toEqual({ code: 0, stdout: '', stderr: '' });
    const failed = await crawl(['job', 'watch', 'demo-small', 'demo-errored', '--jq', filter('error("boom")')], { env: fx.env });
    expect(failed.code).toBe(1);
    expect(failed.stdout).toBe('');
    expect(JSON.parse(failed.stderr)).toMatchObject({ error: { exitCode: 1, message: 'jq: error: boom' } });
  });

  it('the check before any request compiles the filter without running it', async () => {
    const before = fx.sandbox.requests.length;
    // Run on anything before the answer came, these would have halted, printed or errored.
    const halts = await crawl(['job', 'demo-small', '--jq', '.job.id | halt_error(3)'], { env: fx.env });
    expect({ code: halts.code, stderr: halts.stderr }).toEqual({ code: 3, stderr: 'demo-small\n' });
    const debugs = await crawl(['job', 'demo-small', '--jq', '.job.status | debug'], { env: fx.env });
    expect({ code: debugs.code, stdout: debugs.stdout, stderr: debugs.stderr }).toEqual({ code: 0, stdout: 'completed\n', stderr: '["DEBUG:","completed"]\n' });
    expect(fx.sandbox.requests.length).toBe(before + 2);
  });

  it("a compile error is told at the filter's own line and column; a comment at its end is no error", async () => {
    const r = await crawl(['job', 'demo-small', '--jq', '.job |\n  frobnicate'], { env: fx.env });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr).error.message).toBe('invalid --jq filter: frobnicate/0 is not defined at <top-level>, line 2, column 3');
    const commented = await crawl(['job', 'demo-small', '--jq', 'def id: .job.id; id # the id \\'], { env: fx.env });
    expect({ code: commented.code, stdout: commented.stdout }).toEqual({ code: 0, stdout: 'demo-small\n' });
  });

  it('after a runtime error, nothing the filter would have printed for later values', async () => {
    const r = await crawl(['job', 'pages', 'demo-large', '--jq', '.url | debug | if endswith("/3") then error("no") else . end'], { env: fx.env });
    expect(r.code).toBe(1);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(2);
    const stderr = r.stderr.trimEnd().split('\n');
    expect(stderr.slice(0, -1).map((line) => (JSON.parse(line) as [string, string])[1].replace(/.*\//, ''))).toEqual(['1', '2', '3']);
    expect(JSON.parse(stderr.at(-1) as string)).toMatchObject({ error: { exitCode: 1, message: 'jq: error: no' } });
  });
});

describe('what jq does that crawl must not take for something else', () => {
  it('input reads the next record: pairs across batches, and at the end of the stream the error jq gives', async () => {
    // Batches of 7: pairs that straddle a batch's end (7+8, 21+22) are read across it.
    fx.sandbox.addJob({ id: 'jq-pairs', status: 'completed', pagesTotal: 26, pagesPerBatch: 7 });
    const even = await crawl(['job', 'pages', 'jq-pairs', '--jq', '[.url, (input | .url)] | map(sub(".*/"; "")) | join("+")'], { env: fx.env });
    expect({ code: even.code, stderr: even.stderr }).toEqual({ code: 0, stderr: '' });
    const pairs = even.stdout.trimEnd().split('\n');
    expect(pairs).toEqual(Array.from({ length: 13 }, (_, i) => `${2 * i + 1}+${2 * i + 2}`));
    fx.sandbox.addJob({ id: 'jq-pairs-odd', status: 'completed', pagesTotal: 27, pagesPerBatch: 7 });
    const odd = await crawl(['job', 'pages', 'jq-pairs-odd', '--jq', '[.url, (input | .url)] | length'], { env: fx.env });
    expect(odd.code).toBe(1);
    expect(odd.stdout.trimEnd().split('\n')).toHaveLength(13);
    expect(JSON.parse(odd.stderr).error.message).toMatch(/^jq: error: No more inputs/);
  });

  it('a runtime error after stderr output: exit 1 with jq\'s message, what the filter printed before it kept', async () => {
    const r = await crawl(['job', 'demo-small', '--jq', '"x" | stderr | error("boom")'], { env: fx.env });
    expect(r.code).toBe(1);
    const [printed, error] = r.stderr.split('\n');
    expect(printed).toBe('x');
    expect(JSON.parse(error as string)).toMatchObject({ error: { exitCode: 1, message: 'jq: error: boom' } });
  });

  it('an empty filter is `.`, as in jq', async () => {
    const r = await crawl(['api', '/array', '--jq', ''], { env: { ...local, CRAWL_BASE_URL: server.url } });
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: '[1,"two",{"three":3},null]\n' });
  });

  it('a filter that closes the parenthesis it would be put in does not compile, as in jq', async () => {
    const r = await crawl(['job', 'demo-small', '--jq', '.job.id), (.job.status'], { env: fx.env });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr).error.message).toMatch(/^invalid --jq filter: syntax error, unexpected INVALID_CHARACTER.* line 1, column 8$/);
  });

  it('module directives: valid jq; errors and halt_error still stop it, after the batch they come in', async () => {
    const ok = await crawl(['job', 'demo-small', '--jq', 'module {}; .job.id'], { env: fx.env });
    expect({ code: ok.code, stdout: ok.stdout, stderr: ok.stderr }).toEqual({ code: 0, stdout: 'demo-small\n', stderr: '' });
    // Not at which record: the batch's output stands, then the error, as docs/jq.md says.
    const failing = await crawl(['job', 'pages', 'demo-small', '--jq', 'module {}; if (.url | endswith("/3")) then error("at 3") else .url end'], { env: fx.env });
    expect(failing.code).toBe(1);
    expect(failing.stdout).not.toMatch(/\/3$/m);
    expect(JSON.parse(failing.stderr)).toMatchObject({ error: { exitCode: 1, message: 'jq: error: at 3' } });
    const halting = await crawl(['job', 'demo-small', '--jq', 'module {}; "stop" | halt_error(4)'], { env: fx.env });
    expect({ code: halting.code, stderr: halting.stderr }).toEqual({ code: 4, stderr: 'stop\n' });
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

describe('on a terminal, what the filter prints cannot act on it; piped, it is jq\'s', () => {
  const ESC = /[\u001b\u0007\u202e]/;

  it('a document: control and format characters dropped, tabs and line breaks kept', async () => {
    const env = { ...local, CRAWL_BASE_URL: server.url };
    const shown = await crawl(['api', '/escapes', '--jq', '.name, .two'], { env, tty: true });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toBe('a]0;titleb\tc[2Jd\nx\ny\n');
    const piped = await crawl(['api', '/escapes', '--jq', '.name'], { env });
    expect(piped.stdout).toBe('a\u001b]0;title\u0007b\tc\u001b[2J\u202ed\n');
  });

  it('a stream (job pages), and what the filter prints on stderr', async () => {
    fx.sandbox.addJob({ id: 'jq-escapes', url: 'https://example.com/\u001b]0;title\u0007/', status: 'completed', pagesTotal: 3 });
    const shown = await crawl(['job', 'pages', 'jq-escapes', '--jq', '.url | (stderr | empty), .'], { env: fx.env, tty: true });
    expect(shown.code).toBe(0);
    expect(shown.stdout.trimEnd().split('\n')).toEqual(['https://example.com/]0;title/page/1', 'https://example.com/]0;title/page/2', 'https://example.com/]0;title/page/3']);
    expect(shown.stderr).toContain('https://example.com/]0;title/page/1');
    expect(shown.stdout + shown.stderr).not.toMatch(ESC);
    const piped = await crawl(['job', 'pages', 'jq-escapes', '--jq', '.url | (stderr | empty), .'], { env: fx.env });
    expect(piped.stdout).toContain('https://example.com/\u001b]0;title\u0007/page/1\n');
    expect(piped.stderr).toContain('\u001b]0;title\u0007');
  });

  it('a key handed over (auth token): the key whole, nothing around it that acts', async () => {
    const r = await crawl(['auth', 'token', '--jq', '"\\u001b[2J" + .apiKey'], { env: fx.env, tty: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`[2J${fx.sandbox.key}\n`);
  });

  it('a new key printed unfiltered (the filter failed on it): the document as --json shows it on a terminal', async () => {
    // A name with an 8-bit CSI and a right-to-left override, which JSON carries raw in its strings.
    const r = await crawl(['keys', 'create', 'ev\u009b2Jil\u202eRTL', '--jq', 'error("boom")'], { env: fx.env, tty: true });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(ESC);
    expect(r.stdout).not.toContain('\u009b');
    expect(r.stdout).toContain('"name": "ev\\u009b2Jil\\u202eRTL"');
    const key = (JSON.parse(r.stdout) as { key: string }).key;
    expect(await keyStatus(fx.sandbox, key)).toBe(200);
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

  it('keys create --jq .key hands the new key over; a filter that leaves it out is refused before a key is made', async () => {
    const made = await crawl(['keys', 'create', 'jq-made', '--jq', '.key'], { env: fx.env });
    expect(made.code).toBe(0);
    expect(made.stdout).toMatch(/^crk_\S+\n$/);
    const dropped = await crawl(['keys', 'create', 'jq-dropped', '--jq', '.name'], { env: fx.env });
    expect(dropped.code).toBe(2);
    expect(dropped.stdout).toBe('');
    expect(dropped.stderr).toMatch(/the --jq filter leaves the new key out of what it prints/);
  });

  it('a filter that fails on the document holding the new key: the document goes out unfiltered, the error redacted', async () => {
    const r = await crawl(['keys', 'create', 'jq-fails', '--jq', 'error(.key)'], { env: fx.env });
    const doc = JSON.parse(r.stdout) as { key: string };
    expect(doc.key).toMatch(/^crk_/);
    expect(r.stderr).toBe('crawl: warning: jq: error: [redacted]: printed unfiltered, so that the key is not lost\n');
    expect(r.stderr).not.toContain(doc.key);
  });
});

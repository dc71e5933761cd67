// `crawl api <path>`: one authenticated request to any path of the service, as `gh api` makes them.
// Against the sandbox, and a small node:http server that records what it got and answers as told
// (headers, bodies that are not JSON, hostile links, a key echoed back). In this process.
import { createServer, type IncomingMessage } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prettyJson } from '../../../src/text/json-pretty.js';
import { ROOT } from '../../support/spawn.js';
import { findKey } from '../../support/key-forms.js';
import { listenOnLoopback, type OnLoopback } from '../../support/loopback.js';
import { sandboxFixture, type SandboxFixture } from '../../support/sandbox.js';
import { wordsOf } from '../../support/shell-words.js';
import { crawl, tempDir } from '../../support/harness.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

let fx: SandboxFixture;
let tmp: { dir: string; cleanup: () => void };
let server: OnLoopback;
const seen: Seen[] = [];
const KEY = 'crk_' + 'ApiTestKey0123456789abcdef';

beforeAll(async () => {
  fx = await sandboxFixture();
  tmp = tempDir('crawl-api-');
  server = await listenOnLoopback(
    createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (d: string) => (body += d));
      req.on('end', () => {
        seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
        const url = new URL(req.url ?? '/', 'http://x');
        const send = (status: number, text: string, type = 'application/json'): void => {
          res.writeHead(status, { 'content-type': type, 'x-trace': 'abc\u009b31m' });
          res.end(text);
        };
        if (url.pathname === '/prefix/echo') return send(200, JSON.stringify({ method: req.method, body, query: url.search }));
        if (url.pathname === '/prefix/text') return send(200, 'plain text\u001b[2J here\n', 'text/plain');
        if (url.pathname === '/prefix/leak') return send(200, `{"echo":"${String(req.headers.authorization)}"}`);
        if (url.pathname === '/prefix/big-number') return send(200, '{"n":18446744073709551617,"f":1.0,"s":"a\\u001b[31mb"}');
        if (url.pathname === '/prefix/elsewhere') return send(200, '{"items":[1],"next":"/prefix/other"}');
        if (url.pathname === '/prefix/loop') return send(200, '{"items":[1],"next":"/prefix/loop?page=2"}');
        if (url.pathname === '/prefix/teapot') return send(418, '{"error":"I am a teapot"}');
        return send(404, '{"error":"no such path"}');
      });
    }),
  );
});
afterAll(async () => {
  tmp.cleanup();
  await server.close();
  await fx.close();
});

const local = (extra: Record<string, string> = {}): Record<string, string> => ({ CRAWL_BASE_URL: `${server.url}/prefix`, CRAWL_API_KEY: KEY, CRAWL_CONFIG_DIR: join(tmp.dir, 'cfg'), ...extra });
const last = (): Seen => seen.at(-1) as Seen;

describe('crawl api: the request', () => {
  it('GET by default, the path under the base URL with or without its slash, the key sent, the body as received', async () => {
    const [a, b] = await Promise.all([crawl(['api', 'api/keys'], { env: fx.env }), crawl(['api', '/api/keys'], { env: fx.env })]);
    expect([a.code, b.code]).toEqual([0, 0]);
    expect(JSON.parse(a.stdout)).toMatchObject({ success: true, keys: [expect.objectContaining({ name: 'bootstrap' })] });
    expect(a.stdout).toBe(b.stdout.replace(/"lastUsedAt":"[^"]*"/, a.stdout.match(/"lastUsedAt":"[^"]*"/)?.[0] ?? ''));
    const r = await crawl(['api', 'echo'], { env: local() });
    expect(r.code).toBe(0);
    expect(last()).toMatchObject({ method: 'GET', url: '/prefix/echo' });
    expect(last().headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('-f and -F: a JSON body for POST (typed values, @file), the query string for GET; -X and -H', async () => {
    const file = join(tmp.dir, 'note.txt');
    writeFileSync(file, 'from a file');
    const post = await crawl(['api', 'echo', '-f', 'name=ci', '-F', 'count=3', '-F', 'on=true', '-F', 'none=null', '-F', `note=@${file}`, '-f', 'n=007', '-H', 'X-Request-Id: 42'], { env: local() });
    expect(post.code).toBe(0);
    expect(last().method).toBe('POST');
    expect(JSON.parse(last().body)).toEqual({ name: 'ci', count: 3, on: true, none: null, note: 'from a file', n: '007' });
    expect(last().headers['content-type']).toBe('application/json; charset=utf-8');
    expect(last().headers['x-request-id']).toBe('42');
    const get = await crawl(['api', 'echo', '-X', 'get', '-f', 'q=a b', '-F', 'limit=5'], { env: local() });
    expect(get.code).toBe(0);
    expect(last()).toMatchObject({ method: 'GET', url: '/prefix/echo?q=a+b&limit=5', body: '' });
  });

  it('--input: the body as it is (a file, or stdin); fields then go to the query string', async () => {
    const file = join(tmp.dir, 'body.json');
    writeFileSync(file, '{"raw": [1, 2]}');
    const r = await crawl(['api', 'echo', '-X', 'PUT', '--input', file, '-f', 'dry=1'], { env: local() });
    expect(r.code).toBe(0);
    expect(last()).toMatchObject({ method: 'PUT', url: '/prefix/echo?dry=1', body: '{"raw": [1, 2]}' });
    const piped = await crawl(['api', 'echo', '--input', '-'], { env: local(), input: 'text from stdin' });
    expect(piped.code).toBe(0);
    expect(last()).toMatchObject({ method: 'POST', body: 'text from stdin' });
  });

  it('the key goes nowhere but the base URL origin and path: another origin, or a path outside the prefix, is refused before any request', async () => {
    const before = seen.length;
    for (const path of ['http://example.com/prefix/echo', `${server.url}/elsewhere`, '../outside', `${server.url.replace('127.0.0.1', 'localhost')}/prefix/echo`]) {
      const r = await crawl(['api', path], { env: local() });
      expect(r.code, path).toBe(2);
      expect(r.stderr, path).toMatch(/is not under the configured service .*: crawl sends the key nowhere else/);
    }
    expect(seen.length).toBe(before);
  });

  it('-H Authorization (a key on the command line), Host, a header with a line break: usage errors', async () => {
    const cases: Array<[string, RegExp]> = [
      [`Authorization: Bearer ${KEY}`, /the key is sent for you, and never belongs on a command line/],
      ['Host: evil.example', /crawl's HTTP layer sets this header itself/],
      ['X-A: b\nX-B: c', /holds a control character/],
      ['no colon', /give Name: value/],
    ];
    for (const [header, says] of cases) {
      const r = await crawl(['api', 'echo', '-H', header], { env: local() });
      expect(r.code, header).toBe(2);
      expect(r.stderr, header).toMatch(says);
      expect(findKey(r.stderr, KEY)).toBeUndefined();
    }
    const method = await crawl(['api', 'echo', '-X', 'TRACE'], { env: local() });
    expect(method.stderr).toMatch(/invalid --method "TRACE": give one of GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS/);
  });
});

describe('crawl api: nested fields, as gh api builds them', () => {
  it('key[]=v appends to an array, key[sub]=v builds an object, key[] alone is an empty array; they nest; a number keeps its digits', async () => {
    const r = await crawl(
      [
        'api', 'echo',
        '-F', 'a[]=1', '-F', 'a[]=2',
        '-f', 'o[name]=x', '-F', 'o[on]=true', '-f', 'o[tags][]=t1', '-f', 'o[tags][]=t2',
        '-F', 'e[]',
        '-f', 'labels[][name]=bug', '-f', 'labels[][color]=red', '-f', 'labels[][opts][]=a', '-f', 'labels[][opts][]=b', '-f', 'labels[][name]=feature',
        '-F', 'deep[b][]=1', '-F', 'deep[c][d]=null',
        '-F', 'big=18446744073709551617', '-f', 'raw[]=007',
      ],
      { env: local() },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(last().method).toBe('POST');
    expect(last().body).toBe(
      '{"a":[1,2],"o":{"name":"x","on":true,"tags":["t1","t2"]},"e":[],' +
        '"labels":[{"name":"bug","color":"red","opts":["a","b"]},{"name":"feature"}],' +
        '"deep":{"b":[1],"c":{"d":null}},"big":18446744073709551617,"raw":["007"]}',
    );
  });

  it('keys that look like object members stay plain data: __proto__ and constructor are fields like any other', async () => {
    const r = await crawl(['api', 'echo', '-f', '__proto__[polluted]=yes', '-f', 'constructor[]=x'], { env: local() });
    expect(r.code, r.stderr).toBe(0);
    expect(last().body).toBe('{"__proto__":{"polluted":"yes"},"constructor":["x"]}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('with -X GET (or beside --input) the fields are the query string: arrays as repeated key[]=, objects as key[sub]=, null empty, an empty array nothing', async () => {
    const get = await crawl(['api', 'echo', '-X', 'GET', '-F', 'a[]=1', '-F', 'a[]=2', '-f', 'q=x y', '-F', 'n=null', '-F', 'on=true', '-f', 'o[k]=v', '-F', 'e[]'], { env: local() });
    expect(get.code, get.stderr).toBe(0);
    expect(last()).toMatchObject({ method: 'GET', url: '/prefix/echo?a%5B%5D=1&a%5B%5D=2&q=x+y&n=&on=true&o%5Bk%5D=v', body: '' });
    const file = join(tmp.dir, 'put.json');
    writeFileSync(file, '{}');
    const put = await crawl(['api', 'echo', '-X', 'PUT', '--input', file, '-F', 'ids[]=1', '-F', 'ids[]=2'], { env: local() });
    expect(put.code, put.stderr).toBe(0);
    expect(last()).toMatchObject({ method: 'PUT', url: '/prefix/echo?ids%5B%5D=1&ids%5B%5D=2', body: '{}' });
  });

  it('a key given twice without [] is refused, as gh does, rather than one value silently kept; so is a key used as two shapes', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['-f', 'a=x', '-f', 'a=y'], /^crawl: -f a=y: "a" is given twice; for an array give a\[\]=\.\.\. for each value\n/],
      [['-f', 'a=x', '-F', 'a=2'], /-F a=2: "a" is given twice/],
      [['-X', 'GET', '-f', 'q=1', '-f', 'q=2'], /-f q=2: "q" is given twice/],
      [['-f', 'o[k]=1', '-f', 'o[k]=2'], /-f o\[k\]=2: "o\[k\]" is given twice/],
      [['-f', 'o[k]=1', '-f', 'o[]=2'], /-f o\[\]=2: "o" is an object, not an array/],
      [['-f', 'o[]=1', '-f', 'o[k]=2'], /-f o\[k\]=2: "o" is an array, not an object/],
      [['-f', 'o=1', '-f', 'o[k]=2'], /-f o\[k\]=2: "o" is a value, not an object/],
      [['-f', 'o[k]=1', '-f', 'o=2'], /-f o=2: "o" is given twice/],
    ];
    const before = seen.length;
    for (const [flags, says] of cases) {
      const r = await crawl(['api', 'echo', ...flags], { env: local() });
      expect(r.code, flags.join(' ')).toBe(2);
      expect(r.stderr, flags.join(' ')).toMatch(says);
    }
    expect(seen.length).toBe(before);
  });

  it('a key that is not key, key[sub]... or key[]...: a usage error before any request', async () => {
    const before = seen.length;
    for (const field of ['a[b=1', 'a]=1', '[]=1', 'a[b]c=1', 'a[][]=1', 'a', 'a[b]', '=1']) {
      const r = await crawl(['api', 'echo', '-F', field], { env: local() });
      expect(r.code, field).toBe(2);
      expect(r.stderr, field).toMatch(/^crawl: invalid -F "/);
    }
    expect(seen.length).toBe(before);
  });
});

describe('crawl api: the examples', () => {
  /** A command line as written in the docs, without its `$ `, its comment, and any `| jq` after it. */
  const argvOf = async (line: string): Promise<string[]> => (await wordsOf(line.replace(/^\s*\$ /, '').split(' | jq ')[0] ?? '')).slice(1);

  it('fields without -X make a POST, as gh api does; with -X GET they are the query string', async () => {
    const post = await crawl(['api', 'api/crawl/demo-large/pages', '-F', 'limit=10'], { env: fx.env });
    expect(post.code).toBe(1);
    expect(post.stderr).toMatch(/POST \/api\/crawl\/demo-large\/pages failed: HTTP 405/);
    const before = fx.sandbox.requests.length;
    const get = await crawl(['api', 'api/crawl/demo-large/pages', '-X', 'GET', '-F', 'limit=10'], { env: fx.env });
    expect(get.code, get.stderr).toBe(0);
    expect((JSON.parse(get.stdout) as { pages: unknown[] }).pages).toHaveLength(10);
    expect(fx.sandbox.requests.slice(before).map((q) => `${q.method} ${q.url}`)).toEqual(['GET /api/crawl/demo-large/pages?limit=10']);
  });

  it('every crawl api example of the README, of docs/api.md and of --help runs as written against the sandbox', async () => {
    const readme = ['README.md', 'docs/api.md'].map((file) => readFileSync(join(ROOT, file), 'utf8')).join('\n');
    const fromReadme = readme.split('\n').filter((line) => /^(\$ )?crawl api /.test(line));
    const help = (await crawl(['api', '--help'], { env: {} })).stdout;
    const fromHelp = (help.split('\nExamples:\n')[1] ?? '').replace(/ \\\n +/g, ' ').split('\n').filter((line) => line.startsWith('  $ crawl api '));
    expect(fromReadme.length).toBeGreaterThanOrEqual(4);
    expect(fromHelp.length).toBeGreaterThanOrEqual(3);
    const own = await sandboxFixture();
    try {
      for (const line of [...fromReadme, ...fromHelp]) {
        own.sandbox.reset();
        const r = await crawl(await argvOf(line), { env: own.env });
        expect(r.code, `${line}\n${r.stderr}`).toBe(0);
        expect(r.stdout, line).not.toBe('');
      }
    } finally {
      await own.close();
    }
  });
});

describe('crawl api --help', () => {
  it('documents the fields as gh api does: typed values, the method they choose, the nested forms; fitted to the width', async () => {
    const help = (await crawl(['api', '--help'], { env: {} })).stdout;
    const fields = (help.split('\n\nFields:\n')[1] ?? '').split('\n\nExamples:\n')[0] ?? '';
    const prose = fields.replace(/\s+/g, ' ');
    for (const words of ['-X GET', 'key[sub]=value', 'key[]=value', 'key[] alone is an empty array', 'labels[][name]=bug with labels[][color]=red is one label', 'given twice without [] is refused', '@file']) {
      expect(prose, words).toContain(words);
    }
    for (const columns of [50, 80]) {
      const narrow = await crawl(['api', '--help'], { env: {}, tty: true, columns });
      for (const line of narrow.stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(columns);
    }
  });
});

describe('crawl api: the answer', () => {
  it('a non-2xx answer: the body on stdout, the error line on stderr, the contract exit code by status', async () => {
    const [missing, teapot, job] = await Promise.all([
      crawl(['api', 'nothing-here'], { env: local() }),
      crawl(['api', 'teapot'], { env: local() }),
      crawl(['api', 'api/crawl/no-such-job'], { env: fx.env }),
    ]);
    expect([missing.code, teapot.code, job.code]).toEqual([3, 1, 3]);
    expect(missing.stdout).toBe('{"error":"no such path"}');
    expect(teapot.stderr).toBe('crawl: GET /prefix/teapot failed: HTTP 418: I am a teapot\n');
    const denied = await crawl(['api', 'api/keys'], { env: { ...fx.env, CRAWL_API_KEY: 'crk_' + 'n'.repeat(40) } });
    expect(denied.code).toBe(4);
  });

  it('-i: the status and the headers (escapes taken out) before the body', async () => {
    const r = await crawl(['api', 'echo', '-i'], { env: local() });
    expect(r.stdout).toMatch(/^HTTP 200\ncontent-type: application\/json\nx-trace: abc31m\n(.*\n)*\n\{"method":"GET"/);
  });

  it('on a terminal: JSON laid out, numbers as sent, escapes shown not acted on; text without its escapes', async () => {
    const r = await crawl(['api', 'big-number'], { env: local(), tty: true });
    expect(r.stdout).toBe('{\n  "n": 18446744073709551617,\n  "f": 1.0,\n  "s": "a\\u001b[31mb"\n}\n');
    const text = await crawl(['api', 'text'], { env: local(), tty: true });
    expect(text.stdout).toBe('plain text[2J here\n');
    // In a pipe, the bytes as they came.
    const piped = await crawl(['api', 'big-number'], { env: local() });
    expect(piped.stdout).toBe('{"n":18446744073709551617,"f":1.0,"s":"a\\u001b[31mb"}');
  });

  it('a server that echoes the key back: redacted, in every output', async () => {
    const r = await crawl(['api', 'leak'], { env: local() });
    expect(r.code).toBe(0);
    expect(findKey(r.stdout, KEY)).toBeUndefined();
    expect(r.stdout).toContain('[redacted]');
  });

  it('a request that changes something is sent once, never retried', async () => {
    const job = 'api-cancel-once';
    fx.sandbox.addJob({ id: job, status: 'running', pagesTotal: 10 });
    fx.sandbox.inject({ method: 'DELETE', path: `/api/crawl/${job}`, kind: 'status', status: 503, times: 1 });
    const before = fx.sandbox.requests.length;
    const r = await crawl(['api', `api/crawl/${job}`, '-X', 'DELETE'], { env: fx.env });
    expect(r.code).toBe(1);
    expect(fx.sandbox.requests.slice(before).filter((q) => q.method === 'DELETE')).toHaveLength(1);
  });

  it('POST api/keys (a new key in the answer) is refused before any request: keys are handed over by keys create only', async () => {
    const before = fx.sandbox.requests.length;
    for (const path of ['api/keys', '/api/keys/', `${fx.sandbox.url}/api/keys`]) {
      const r = await crawl(['api', path, '-f', 'name=via-api'], { env: fx.env });
      expect(r.code, path).toBe(2);
      expect(r.stderr, path).toMatch(/^crawl: a key is created with `crawl keys create <name>`/);
    }
    expect(fx.sandbox.requests.length).toBe(before);
  });
});

describe('crawl api --paginate', () => {
  it('follows the cursor as job pages does, one value a line; the fields stay in the query', async () => {
    const r = await crawl(['api', 'api/crawl/demo-large/pages', '--paginate', '-f', 'limit=100'], { env: fx.env });
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as { pages: unknown[] });
    expect(lines.map((page) => page.pages.length)).toEqual([100, 100, 50]);
    const pages = await crawl(['job', 'pages', 'demo-large'], { env: fx.env });
    expect(lines.flatMap((page) => page.pages).map((p) => JSON.stringify(p)).join('\n') + '\n').toBe(pages.stdout);
  });

  it('a link to another path, or the same next page twice: stops with exit 1 after what was written', async () => {
    const elsewhere = await crawl(['api', 'elsewhere', '--paginate'], { env: local() });
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stdout).toBe('{"items":[1],"next":"/prefix/other"}\n');
    expect(elsewhere.stderr).toMatch(/refusing to follow the next page link to .*\/prefix\/other: only \/prefix\/elsewhere/);
    const loop = await crawl(['api', 'loop', '--paginate'], { env: local() });
    expect(loop.code).toBe(1);
    expect(loop.stdout.trimEnd().split('\n')).toHaveLength(2);
    expect(loop.stderr).toMatch(/names a next page it named before; stopping to avoid a loop/);
    const post = await crawl(['api', 'echo', '--paginate', '-X', 'POST'], { env: local() });
    expect(post.code).toBe(2);
  });
});

describe('prettyJson', () => {
  it('lays out any JSON as JSON.stringify does, the values unchanged', () => {
    const doc = { a: [1, { b: 'x', c: [] }, {}], d: null, e: 'line\nbreak', f: -1.5e3 };
    expect(prettyJson(JSON.stringify(doc))).toBe(JSON.stringify(doc, null, 2));
    expect(JSON.parse(prettyJson('{ "k" : [ 1 , 2 ] , "s" : "\\u2028\u2028\u200b" }'))).toEqual({ k: [1, 2], s: '\u2028\u2028\u200b' });
    expect(prettyJson('"\u200b"')).toBe('"\\u200b"');
  });
});

// A service that echoes the caller's key back, encoded every way key-forms.ts knows, in every
// string a command shows. Whatever the mode (terminal, plain rows, watch lines live and plain,
// errors, --verbose traces and stack traces, --json documents and error lines, NDJSON pages on
// stdout and in a file), no decodable form of the key may come out, and the echo must still be
// visible as [redacted] (shown and redacted, not silently dropped).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it, vi, type ExpectStatic } from 'vitest';
import { ndjson, runCli, tempDir, type RunOptions, type RunResult } from '../support/harness.js';
import { ERROR_GROUPS, startEchoService, type EchoService } from '../support/echo-service.js';
import { decodings, findKey, jsonForms, randomKey, urlForms } from '../support/key-forms.js';

vi.setConfig({ maxConcurrency: 6 });

let echo: EchoService;
let dir: { dir: string; cleanup: () => void };
beforeAll(async () => {
  echo = await startEchoService();
  dir = tempDir('crawl-redact-');
});
afterAll(async () => {
  await echo.close();
  dir.cleanup();
});

/** A service-style key, and one with `/`, `+` and `=` (as base64 keys have), set through CRAWL_API_KEY. */
const KEYS = [
  ['plain key', randomKey('crk_', 24)],
  ['key with / + =', `${randomKey('crk_', 8)}/x+${randomKey('', 10)}=/`],
] as const;

let serial = 0;

async function run(key: string, args: string[], options: { tty?: boolean; process?: RunOptions['process'] } = {}): Promise<RunResult> {
  const env = { CRAWL_BASE_URL: echo.url, CRAWL_API_KEY: key, CRAWL_CONFIG_DIR: join(dir.dir, `cfg-${++serial}`), NO_COLOR: undefined };
  return runCli([...args, '--timeout', '10'], { env, tty: options.tty ?? false, timeoutMs: 18_000, ...(options.process === undefined ? {} : { process: options.process }) });
}

/** Whether a case's extra flags include `flag` (the tables' tuples are too narrow for includes()). */
const has = (extra: readonly string[], flag: string): boolean => extra.includes(flag);

const CSI = /\u001b\[[0-9;?]*[A-Za-z]/g;
const ANY_CONTROL = /[\p{Cc}\p{Cf}\u2028\u2029\u{E0000}-\u{E007F}]/u;

/** No decodable key anywhere; the echo shown as [redacted]; no escape or invisible character from the server. */
function checkOutput(expect: ExpectStatic, r: RunResult, key: string, want: { code: number; tty?: boolean; verbose?: boolean; redacted?: boolean }): void {
  const all = r.stdout + r.stderr;
  const context = `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`;
  expect(r.timedOut, context).toBe(false);
  expect(r.code, context).toBe(want.code);
  expect(findKey(all, key), `a decodable form of the key was printed\n${context}`).toBeUndefined();
  if (want.redacted !== false) expect(all, context).toContain('[redacted]');
  if (!want.verbose) expect(all, context).not.toContain('    at ');
  // What is left once crawl's own colour and cursor codes, line ends and tabs are taken out: nothing invisible.
  const own = want.tty ? all.replace(CSI, '').replace(/[\r\n\t]/g, '') : all.replace(/[\n\t]/g, '');
  expect(ANY_CONTROL.exec(own)?.[0], `an invisible or control character reached the output\n${context}`).toBeUndefined();
}

describe('the forms themselves', () => {
  // Without this, a decoder that found nothing would make every check below pass.
  it.for(KEYS)('every form of the %s decodes back to it, raw and as a reader sees it', ([, key], { expect }) => {
    for (const [name, form] of Object.entries(jsonForms(key))) {
      // Encoded: no plain copy of the key in it (except the literal form, and `\/` of a key without `/`).
      if (name !== 'literal' && form !== key) expect(form.includes(key), name).toBe(false);
      expect(findKey(form, key), `${name} raw`).toBeDefined();
      expect(findKey(JSON.parse(`"${form}"`) as string, key), `${name} parsed`).toBeDefined();
    }
    for (const [name, form] of Object.entries(urlForms(key))) {
      expect(findKey(new URL(`/x/${form}`, 'http://h').pathname, key), name).toBeDefined();
    }
    expect(decodings('plain text').every((t) => t === 'plain text')).toBe(true);
  });
});

describe.concurrent.each(KEYS)('a service that echoes the %s', (_label, key) => {
  it.for([
    ['plain', [], false],
    ['terminal', [], true],
    ['--json', ['--json'], false],
    ['--verbose', ['--verbose'], false],
  ] as const)('job status (url, errorMessage): %s', async ([, extra, tty], { expect }) => {
    const r = await run(key, ['job', 'status', 'echo-job', ...extra], { tty });
    checkOutput(expect, r, key, { code: 0, tty, verbose: has(extra, '--verbose') });
    if (has(extra, '--json')) expect(() => JSON.parse(r.stdout)).not.toThrow();
  });

  it.for([
    ['plain lines', [], false],
    ['live line', [], true],
    ['--json', ['--json'], false],
  ] as const)('job watch (the status itself): %s', async ([, extra, tty], { expect }) => {
    const id = `echo-status-${++serial}`;
    const r = await run(key, ['job', 'watch', id, '--interval', '0.5', ...extra], { tty });
    checkOutput(expect, r, key, { code: 10, tty });
    if (has(extra, '--json')) expect(ndjson(r.stdout)).toHaveLength(2);
  });

  it('job pages: records on stdout and in --output, redacted by the HTTP layer, the rest as sent', async ({ expect }) => {
    const r = await run(key, ['job', 'pages', 'echo-pages']);
    checkOutput(expect, r, key, { code: 0, redacted: false });
    const file = join(dir.dir, `pages-${++serial}.ndjson`);
    const f = await run(key, ['job', 'pages', 'echo-pages', '--output', file]);
    checkOutput(expect, f, key, { code: 0, redacted: false });
    for (const text of [r.stdout, readFileSync(file, 'utf8')]) {
      expect(findKey(text, key)).toBeUndefined();
      const records = ndjson(text) as Array<{ url: string; form: string; text: string }>;
      expect(records.map((x) => x.form)).toEqual(Object.keys(jsonForms(key)));
      for (const record of records) {
        expect(record.text, record.form).toContain('[redacted]');
        expect(record.url).toBe(`https://example.com/${record.form}`);
      }
    }
  });

  it.for([
    ['plain rows', [], false],
    ['table', [], true],
    ['--json', ['--json'], false],
  ] as const)('keys list (key names): %s', async ([, extra, tty], { expect }) => {
    const r = await run(key, ['keys', 'list', ...extra], { tty });
    checkOutput(expect, r, key, { code: 0, tty });
    if (!has(extra, '--json')) expect(r.stdout).toMatch(tty ? /\(in use\)/ : /\ttrue$/m);
  });

  it.for([
    ['plain', [], false],
    ['terminal', [], true],
    ['--json', ['--json'], false],
  ] as const)('keys create (the name and warning it returns): %s', async ([, extra, tty], { expect }) => {
    const before = echo.created.length;
    const r = await run(key, ['keys', 'create', 'ci', ...extra], { tty });
    checkOutput(expect, r, key, { code: 0, tty });
    // The new key is still handed over whole: it is not a secret of the run until it exists.
    const fresh = echo.created.slice(before);
    expect(fresh.some((k) => r.stdout.includes(k)), r.stdout).toBe(true);
  });

  it.for(ERROR_GROUPS.map((names, i) => [names.join(', '), i] as const))('an error message with %s', async ([, group], { expect }) => {
    const plain = await run(key, ['job', 'status', `err-${group}`]);
    checkOutput(expect, plain, key, { code: 1 });
    expect(plain.stderr).toMatch(/^crawl: GET \/api\/crawl\/err-\d+ failed: HTTP 400: bad request: /);
    // --json and --verbose together: the JSON error line, the trace and the stack trace.
    const json = await run(key, ['job', 'status', `err-${group}`, '--json', '--verbose']);
    checkOutput(expect, json, key, { code: 1, verbose: true });
    const line = json.stderr.split('\n').find((l) => l.startsWith('{"error"'));
    expect(line, json.stderr).toBeDefined();
    expect((JSON.parse(line ?? '') as { error: { message: string } }).error.message).toContain('[redacted]');
    expect(json.stderr).toContain('    at ');
  });

  it.for([
    ['--verbose', ['--verbose']],
    ['--json --verbose', ['--json', '--verbose']],
  ] as const)('a redirect Location with every URL form of the key: error, trace and stack, %s', async ([, extra], { expect }) => {
    const r = await run(key, ['job', 'status', 'redir', ...extra]);
    checkOutput(expect, r, key, { code: 1, verbose: true });
    const forms = Object.keys(urlForms(key)).length;
    const shown = `/api/crawl/moved/\\[redacted\\]${'/-/\\[redacted\\]'.repeat(forms - 1)}`;
    expect(r.stderr).toMatch(new RegExp(`following redirect \\(HTTP 302\\) to http://127\\.0\\.0\\.1:\\d+${shown}\n`));
    const message = has(extra, '--json')
      ? (JSON.parse(r.stderr.split('\n').find((l) => l.startsWith('{')) ?? '') as { error: { message: string } }).error.message
      : r.stderr.split('\n').find((l) => l.startsWith('crawl: ')) ?? '';
    expect(message).toMatch(new RegExp(`malformed response to GET ${shown}: `));
  });

  // The error quotes at most 100 characters of the Location: forms short enough to be quoted whole.
  it.for(['literal', 'percentSome', 'percentDouble'])('an invalid redirect Location with the key %s, quoted in the error', async (form, { expect }) => {
    const r = await run(key, ['job', 'status', `badredir-${form}`]);
    checkOutput(expect, r, key, { code: 1 });
    expect(r.stderr).toMatch(/^crawl: malformed response: the service redirected \(HTTP 302\) to "http:\/\/\[\[redacted\]/);
    if (form === 'literal') {
      const j = await run(key, ['job', 'status', `badredir-${form}`, '--json']);
      checkOutput(expect, j, key, { code: 1 });
    }
  });

  it.for([
    ['plain', false],
    ['terminal', true],
  ] as const)('a stack trace quoting a server string with escapes, sanitised line by line: %s', async ([, tty], { expect }) => {
    const r = await run(key, ['job', 'pages', 'echo-running', '--verbose'], { tty });
    checkOutput(expect, r, key, { code: 2, tty, verbose: true });
    expect(r.stdout + r.stderr).toContain('    at ');
    expect(r.stdout + r.stderr).toMatch(/job run \]0;pwned\[2J \[redacted\]/);
  });
});

// --json on every command that prints data, with the shapes docs/settings.md documents, and
// `auth status` when the service cannot be reached. In this process, against the sandbox.
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonDocument } from '../../src/io/json.js';
import { maskKey } from '../../src/text/mask.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';
import { crawl, runCli, tempDir, waitFor } from '../support/harness.js';
import { configFolderWith } from '../support/local-faults.js';

let fx: SandboxFixture;
let tmp: { dir: string; cleanup: () => void };
let config: { dir: string; file: string };
/** A loopback port nothing listens on. */
let closed: string;
beforeAll(async () => {
  fx = await sandboxFixture();
  tmp = tempDir('crawl-json-');
  config = configFolderWith(tmp.dir, { profiles: { default: { 'base-url': fx.sandbox.url, 'api-key': fx.sandbox.key } } });
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closed = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
afterAll(async () => {
  tmp.cleanup();
  await fx.close();
});

/** One JSON document on stdout, nothing on stderr. */
function document(r: { code: number | null; stdout: string; stderr: string }): unknown {
  expect(r.code).toBe(0);
  expect(r.stderr).toBe('');
  expect(r.stdout.endsWith('\n')).toBe(true);
  expect(r.stdout.trim().split('\n')).toHaveLength(1);
  return JSON.parse(r.stdout);
}

describe('--json', () => {
  it('auth token: the key handed over whole, in a document', async () => {
    const [fromEnv, fromConfig] = await Promise.all([
      crawl(['auth', 'token', '--json'], { env: fx.env }),
      crawl(['auth', 'token', '--json'], { env: { CRAWL_CONFIG_DIR: config.dir } }),
    ]);
    expect(document(fromEnv)).toEqual({ profile: 'default', apiKey: fx.sandbox.key, apiKeySource: 'env' });
    expect(document(fromConfig)).toEqual({ profile: 'default', apiKey: fx.sandbox.key, apiKeySource: 'config' });
  });

  it('config get, list and path', async () => {
    const env = { CRAWL_CONFIG_DIR: config.dir };
    const [get, list, path] = await Promise.all([
      crawl(['config', 'get', 'base-url', '--json'], { env }),
      crawl(['config', 'list', '--json'], { env }),
      crawl(['config', 'path', '--json'], { env }),
    ]);
    expect(document(get)).toEqual({ profile: 'default', key: 'base-url', value: fx.sandbox.url, overriddenBy: null });
    expect(document(list)).toEqual({
      profile: 'default',
      'base-url': fx.sandbox.url,
      'api-key': maskKey(fx.sandbox.key),
      sources: { profile: 'default', 'base-url': 'config', 'api-key': 'config' },
      overridden: {},
    });
    expect(document(path)).toEqual({ path: config.file });
  });

  it('auth status', async () => {
    const r = await crawl(['auth', 'status', '--json'], { env: fx.env });
    expect(document(r)).toEqual({
      profile: 'default',
      baseUrl: `${fx.sandbox.url}/`,
      baseUrlSource: 'env',
      apiKey: maskKey(fx.sandbox.key),
      apiKeySource: 'env',
      keyStore: null,
      keyLocation: 'CRAWL_API_KEY',
      overriddenStore: null,
      plaintext: false,
      accepted: true,
      httpStatus: 200,
    });
  });

  it('sandbox: its start-up info as one document, then nothing more on stdout', async () => {
    let info: { url: string; key: string; demoJobs: string[] } | undefined;
    let answered = 0;
    const r = await runCli(['sandbox', '--port', '0', '--json'], {
      env: { CRAWL_SANDBOX_KEY: 'crk_playground_key_0123456789' },
      onSpawn: (child, out) => {
        void waitFor(() => out.stdout().endsWith('\n'), 10_000, 'the start-up line').then(async () => {
          info = JSON.parse(out.stdout()) as typeof info;
          const res = await fetch(`${info?.url}/api/crawl/demo-small`, { headers: { authorization: `Bearer ${info?.key}` } });
          answered = res.status;
          await res.arrayBuffer();
          child.kill('SIGINT');
        });
      },
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(info).toEqual({ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), key: 'crk_playground_key_0123456789', demoJobs: expect.arrayContaining(['demo-running', 'demo-small']) });
    expect(answered).toBe(200);
  });

  it('sandbox: a port in use is one JSON error line', async () => {
    const r = await crawl(['sandbox', '--port', new URL(fx.sandbox.url).port, '--json'], { env: {} });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toEqual({ error: { message: expect.stringMatching(/port is already in use/), httpStatus: null, exitCode: 1 } });
  });
});

describe('auth status when the service cannot be reached', () => {
  const env = (): Record<string, string> => ({ CRAWL_BASE_URL: closed, CRAWL_API_KEY: fx.sandbox.key, CRAWL_CONFIG_DIR: config.dir });

  it('on a terminal: what is known here, the verdict not known, the failure and its exit code', async () => {
    const r = await crawl(['auth', 'status'], { env: { ...env(), NO_COLOR: '1' }, tty: true });
    expect(r.code).toBe(5);
    expect(r.stdout).toBe(
      'Profile   default\n' +
        `Base URL  ${closed}/ (from CRAWL_BASE_URL)\n` +
        `Key       ${maskKey(fx.sandbox.key)} (from CRAWL_API_KEY)\n` +
        'Status    ? not checked: the check failed (below)\n',
    );
    // The profile's own key (in the config file) is overridden by the environment's: said, before the error.
    expect(r.stderr).toMatch(/^note: CRAWL_API_KEY overrides the key of profile "default" \(in the config file, plaintext: .+\)\n/);
    expect(r.stderr).toMatch(new RegExp(`^crawl: cannot check the key with the service: connection refused: GET ${closed}/api/keys`, 'm'));
    expect(r.stderr).not.toContain(fx.sandbox.key);
  });

  it('with --json: what is known and accepted null; in a pipe nothing a script could take for a verdict', async () => {
    const [plain, json] = await Promise.all([crawl(['auth', 'status'], { env: env() }), crawl(['auth', 'status', '--json'], { env: env() })]);
    expect(plain.code).toBe(5);
    expect(plain.stdout).toBe('');
    // What is known here is in the one error line.
    expect(plain.stderr).toMatch(new RegExp(`^crawl: cannot check the key \\(profile "default", ${closed}/, key ${maskKey(fx.sandbox.key).replace(/[*]/g, '\\*')} in CRAWL_API_KEY\\) with the service: connection refused`));
    expect(json.code).toBe(5);
    expect(JSON.parse(json.stdout)).toMatchObject({ profile: 'default', apiKey: maskKey(fx.sandbox.key), accepted: null, httpStatus: null });
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { exitCode: 5, httpStatus: null } });
  });
});

describe('on a terminal', () => {
  // --json on a terminal: one document laid out for people (whitespace only), for every command
  // alike; in a pipe the same document as received; streams one value a line everywhere.
  let fx: SandboxFixture;
  beforeAll(async () => {
    fx = await sandboxFixture({ seed: false });
    fx.sandbox.addJob({ id: 'pretty-done', status: 'completed', pagesTotal: 3 });
    fx.sandbox.addJob({ id: 'pretty-running', status: 'running', pagesTotal: 100, pagesFinished: 1, advance: { perPoll: 50 } });
  });
  afterAll(async () => {
    await fx.close();
  });

  /** Pretty: more than one line, two-space indentation, and the same value as the compact form. */
  function expectPretty(stdout: string): unknown {
    expect(stdout.endsWith('\n')).toBe(true);
    const lines = stdout.trimEnd().split('\n');
    expect(lines.length, stdout).toBeGreaterThan(2);
    expect(lines[0]).toMatch(/^[[{]$/);
    expect(lines[1]).toMatch(/^ {2}\S/);
    return JSON.parse(stdout) as unknown;
  }

  function shape(value: unknown): unknown {
    if (Array.isArray(value)) return value.map(shape);
    if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shape(v)]));
    return typeof value;
  }

  const commands: Array<[string, string[]]> = [
    ['job status', ['job', 'status', 'pretty-done']],
    ['keys list', ['keys', 'list']],
    ['config path', ['config', 'path']],
    ['auth status', ['auth', 'status']],
    ['config list', ['config', 'list']],
    ['sandbox --reset', ['sandbox', '--reset']],
  ];

  describe('--json on a terminal is pretty-printed, in a pipe as received', () => {
    it.each(commands)('%s', async (_name, argv) => {
      const onTerminal = await crawl([...argv, '--json'], { env: fx.env, tty: true });
      expect(onTerminal.code, onTerminal.stderr).toBe(0);
      const pretty = expectPretty(onTerminal.stdout);
      const inPipe = await crawl([...argv, '--json'], { env: fx.env, tty: { stderr: true } });
      expect(inPipe.code).toBe(0);
      expect(inPipe.stdout.trimEnd().split('\n')).toHaveLength(1);
      // The same document (a key's lastUsedAt moves between the two runs: its shape is compared).
      expect(shape(JSON.parse(inPipe.stdout))).toEqual(shape(pretty));
    });

    it('the body keeps its tokens: a number as the service wrote it', () => {
      const text = '{"a":1.0,"b":18446744073709551616,"c":"x\\u001b[31m"}';
      expect(jsonDocument({ prettyJson: true }, text)).toBe('{\n  "a": 1.0,\n  "b": 18446744073709551616,\n  "c": "x\\u001b[31m"\n}\n');
      expect(jsonDocument({ prettyJson: false }, text)).toBe(text + '\n');
    });

    it('--jq on a terminal prints what jq prints, not a re-laid document', async () => {
      const r = await crawl(['job', 'status', 'pretty-done', '--jq', '{id: .job.id}'], { env: fx.env, tty: true });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('{"id":"pretty-done"}\n');
    });

    it('a stream stays one value a line on a terminal: job watch --json', async () => {
      const r = await crawl(['job', 'watch', 'pretty-running', '--json'], { env: fx.env, tty: true });
      expect(r.code).toBe(0);
      const lines = r.stdout.trimEnd().split('\n');
      expect(lines.length).toBeGreaterThan(1);
      for (const line of lines) expect(JSON.parse(line)).toHaveProperty('job');
    });
  });
});

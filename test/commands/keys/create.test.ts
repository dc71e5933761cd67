
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl, runCli, tempDir } from '../../support/harness.js';
import { onArrival, sandboxFixture, type SandboxFixture } from '../../support/sandbox.js';
import { startHostile } from '../../support/hostile-server.js';
import { BROKEN_HEAD, brokenKey } from '../../support/key-forms.js';
import { activeKeys, calls, fullKeysIn, keyStatus } from '../../support/keys.js';
import { envOf, folderWith } from '../../support/settings.js';

let fx: SandboxFixture;
let files: { dir: string; cleanup: () => void };
beforeAll(async () => {
  fx = await sandboxFixture({ seed: false });
  files = tempDir('crawl-create-');
});
afterAll(async () => {
  files.cleanup();
  await fx.close();
});

const KEY_LINE = /^crk_[A-Za-z0-9]{20,}\n$/;

describe('crawl keys create', () => {
  it('prints the full key alone on stdout and the warning, name and prefix on stderr', async () => {
    const r = await runCli(['keys', 'create', 'ci'], { env: fx.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(KEY_LINE);
    const key = r.stdout.trim();
    expect(r.stderr).toContain('Created key "ci"');
    expect(r.stderr).toContain(`prefix ${key.slice(0, 12)}`);
    expect(r.stderr).toMatch(/not be shown again/);
    expect(r.stderr).not.toContain(key);
    expect(await keyStatus(fx.sandbox, key)).toBe(200);
    const listed = (await activeKeys(fx.sandbox, fx.sandbox.key)).find((k) => key.startsWith(k.keyPrefix));
    expect(listed?.name).toBe('ci');
  });

  it('prints the key on a terminal too, once', async () => {
    const r = await runCli(['keys', 'create', 'tty'], { env: fx.env, tty: true });
    expect(r.code).toBe(0);
    const keys = fullKeysIn(r.stdout);
    expect(keys).toHaveLength(1);
    expect(r.stdout).toMatch(/not be shown again/);
    expect(await keyStatus(fx.sandbox, keys[0] ?? '')).toBe(200);
  });

  it('--json writes the service body as received, and nothing else', async () => {
    const r = await runCli(['keys', 'create', 'scripted', '--json'], { env: fx.env });
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    const body = JSON.parse(r.stdout);
    expect(body).toMatchObject({ success: true, name: 'scripted' });
    expect(body.key.startsWith(body.prefix)).toBe(true);
    expect(body.warning).toMatch(/not be shown again/);
    expect(r.stderr).toBe('');
  });

  it('--save stores the new key as the profile key (mode 0600), and --verbose never shows it on stderr', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const r = await runCli(['keys', 'create', 'saved', '--save', '--verbose'], { env: { ...fx.env, CRAWL_CONFIG_DIR: dir } });
      expect(r.code).toBe(0);
      // The key has a home (the profile): it is not printed.
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('* POST');
      expect(fullKeysIn(r.stderr)).toEqual([]);
      expect(r.stderr).toMatch(/Saved as the key of profile "default"/);
      expect(r.stderr).toMatch(/CRAWL_API_KEY is set and takes precedence/);
      // Kept where it was asked to go: no word about keeping it.
      expect(r.stderr).not.toMatch(/not be shown again/);
      const file = join(dir, 'config.json');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const config = JSON.parse(readFileSync(file, 'utf8'));
      const key: string = config.profiles.default['api-key'];
      expect(key).toMatch(/^crk_/);
      expect(config.profiles.default['base-url']).toBe(fx.sandbox.url + '/');
      expect(await keyStatus(fx.sandbox, key)).toBe(200);
    } finally {
      cleanup();
    }
  });

  it('--output-file writes a new file with mode 0600', async () => {
    const path = join(files.dir, 'new.key');
    const r = await runCli(['keys', 'create', 'filed', '--output-file', path], { env: fx.env });
    expect(r.code).toBe(0);
    // Written where it was asked to go, and nowhere else.
    expect(r.stdout).toBe('');
    expect(readFileSync(path, 'utf8')).toMatch(KEY_LINE);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(r.stderr).toContain(`Wrote the key to ${path}`);
    expect(r.stderr).not.toMatch(/not be shown again|warning/);
  });

  it('refuses an existing --output-file before creating anything', async () => {
    const path = join(files.dir, 'exists.key');
    writeFileSync(path, 'keep me\n');
    const before = fx.sandbox.requests.length;
    const r = await runCli(['keys', 'create', 'nope', '--output-file', path], { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/already exists/);
    expect(r.stdout).toBe('');
    expect(readFileSync(path, 'utf8')).toBe('keep me\n');
    expect(calls(fx.sandbox, before)).toEqual([]);
  });

  it('an empty or blank name is a usage error before any request', async () => {
    const before = fx.sandbox.requests.length;
    for (const name of ['', '   ']) {
      const r = await runCli(['keys', 'create', name], { env: fx.env });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/needs a name/);
    }
    expect(calls(fx.sandbox, before)).toEqual([]);
  });

  it('never retries the POST: a 503 fails at once', async () => {
    fx.sandbox.inject({ method: 'POST', path: '/api/keys', kind: 'status', status: 503, times: 1 });
    const before = fx.sandbox.requests.length;
    const r = await runCli(['keys', 'create', 'flaky'], { env: fx.env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/HTTP 503/);
    expect(r.stdout).toBe('');
    expect(calls(fx.sandbox, before)).toEqual(['POST /api/keys']);
  });

  it('a connection lost after sending says a key may exist and to check the list', async () => {
    fx.sandbox.inject({ method: 'POST', path: '/api/keys', kind: 'drop', times: 1 });
    const before = fx.sandbox.requests.length;
    const r = await runCli(['keys', 'create', 'dropped'], { env: fx.env });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/a key may have been created/);
    expect(r.stderr).toContain('crawl keys list');
    expect(calls(fx.sandbox, before)).toEqual(['POST /api/keys']);
  });

  it('when --save fails after the key was made, the key is still printed and the failure named (exit 1)', async () => {
    // The config folder is taken by a regular file as the POST arrives (before it is answered): the
    // config was readable (absent) before the key was made, and cannot be written after (even as root).
    const blocker = join(files.dir, 'not-a-folder');
    onArrival(fx.sandbox, (q) => q.method === 'POST' && q.url === '/api/keys', () => writeFileSync(blocker, ''));
    const r = await runCli(['keys', 'create', 'unsaved', '--save'], { env: { ...fx.env, CRAWL_CONFIG_DIR: blocker } });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(KEY_LINE);
    expect(r.stderr).toMatch(/the key was created, but cannot write config file/);
    expect(r.stderr).toMatch(/only copy/);
    expect(r.stderr).toContain('crawl auth login --with-key');
    expect(fullKeysIn(r.stderr)).toEqual([]);
    expect(await keyStatus(fx.sandbox, r.stdout.trim())).toBe(200);
  });

  it('never overwrites a file that appears while the key is being created (O_EXCL)', async () => {
    const path = join(files.dir, 'raced.key');
    // The file appears as the POST arrives, before it is answered.
    onArrival(fx.sandbox, (q) => q.method === 'POST' && q.url === '/api/keys', () => writeFileSync(path, 'other\n'));
    const r = await runCli(['keys', 'create', 'raced', '--output-file', path], { env: fx.env });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(KEY_LINE);
    expect(readFileSync(path, 'utf8')).toBe('other\n');
    expect(r.stderr).toMatch(/cannot write the key to .*raced\.key: it already exists/);
    expect(existsSync(path)).toBe(true);
  });
});

describe('--jq', () => {
  // `keys create --jq`: a created key is never lost to a filter. A filter that would leave the key
  // out, with stdout its only home, is refused before the POST; with another home (--output-file)
  // it runs; one that leaves the real key out after all is overruled (the answer printed unfiltered).
  // In this process, against the sandbox.
  let fx: SandboxFixture;
  let tmp: { dir: string; cleanup: () => void };
  beforeAll(async () => {
    fx = await sandboxFixture({ seed: false });
    tmp = tempDir('crawl-create-jq-');
  });
  afterAll(async () => {
    tmp.cleanup();
    await fx.close();
  });

  const posts = (): number => fx.sandbox.requests.filter((q) => q.method === 'POST' && q.url.startsWith('/api/keys')).length;

  describe('keys create --jq: the key is never lost to the filter', () => {
    it.each([['.name'], ['.prefix'], ['.key[0:8]'], ['{name}'], ['empty']])('--jq %s with stdout the only home: exit 2, no key created', async (filter) => {
      const before = posts();
      const r = await crawl(['keys', 'create', 'lost', '--jq', filter], { env: fx.env });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      // Off a terminal, under --jq, the error is the JSON line.
      const error = (JSON.parse(r.stderr) as { error: { message: string; exitCode: number } }).error;
      expect(error).toMatchObject({ message: 'the --jq filter leaves the new key out of what it prints, and the key would be kept nowhere else: no key was created', exitCode: 2 });
      expect(posts()).toBe(before);
      // On a terminal, the text lines and the hint.
      const shown = await crawl(['keys', 'create', 'lost', '--jq', filter], { env: fx.env, tty: true });
      expect(shown.code).toBe(2);
      expect(shown.stderr).toBe(
        'crawl: the --jq filter leaves the new key out of what it prints, and the key would be kept nowhere else: no key was created\n' +
          'hint: keep .key in the filter (`--jq .key`), or give the key a home with --save or --output-file <path>\n',
      );
      expect(posts()).toBe(before);
    });

    it('with --output-file the key has a home: the filter runs, and the file holds the key', async () => {
      const file = join(tmp.dir, 'made.key');
      const r = await crawl(['keys', 'create', 'homed', '--jq', '.name', '--output-file', file], { env: fx.env });
      expect(r.code).toBe(0);
      expect(readFileSync(file, 'utf8')).toMatch(/^crk_\S+\n?$/);
    });

    it('a filter that keeps the stand-in but drops the real key: the answer goes out unfiltered, with a warning', async () => {
      const filter = 'if (.key | test("STANDIN")) then .key else .name end';
      const r = await crawl(['keys', 'create', 'tricky', '--jq', filter], { env: fx.env });
      expect(r.code).toBe(0);
      const doc = JSON.parse(r.stdout) as { key: string; name: string };
      expect(doc.name).toBe('tricky');
      expect(doc.key).toMatch(/^crk_/);
      expect(r.stderr).toBe('crawl: warning: the --jq filter left out the new key, which is kept nowhere else: printed unfiltered, so that the key is not lost\n');
    });

    it('the check runs the filter quietly: what it prints on stderr comes once, from the real answer', async () => {
      const r = await crawl(['keys', 'create', 'noisy', '--jq', '.key | debug'], { env: fx.env });
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^crk_\S+\n$/);
      expect(r.stderr).toBe('["DEBUG:","[redacted]"]\n');
    });
  });
});

describe('a key that cannot be sent is never stored', () => {
  // A service that hands out such a key (keys create --save): the config keeps what it had.
  it.concurrent.for([
    ['LF', '\n'],
    ['ESC', '\u001b[2J'],
    ['a space', ' '],
    ['a zero-width space', '\u200b'],
  ] as Array<[string, string]>)('keys create --save, the service\'s key holding %s: nothing stored, exit 1 saying why', async ([, inside], { expect }) => {
    const made = brokenKey(inside);
    const hostile = await startHostile({
      upstream: fx.sandbox.url,
      rules: [{ method: 'POST', path: '/api/keys', fault: { kind: 'respond', status: 201, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ success: true, key: made, prefix: BROKEN_HEAD, name: 'odd', warning: 'keep it' }) } }],
    });
    try {
      const { dir, file } = folderWith(files.dir, { profiles: { default: { 'base-url': hostile.url } } });
      const before = readFileSync(file);
      const r = await runCli(['keys', 'create', 'odd', '--save'], { env: envOf({ CRAWL_CONFIG_DIR: dir, CRAWL_API_KEY: fx.sandbox.key }) });
      expect(r.code).toBe(1);
      // Refused where the service's answer is read, before any attempt to store it.
      expect(r.stderr).toContain('the service returned an unusable key named "odd"');
      expect(r.stderr).not.toContain(made);
      expect(readFileSync(file).equals(before)).toBe(true);
      expect(readdirSync(dir)).toEqual(['config.json']);
    } finally {
      await hostile.close();
    }
  });
});

import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../../support/harness.js';
import { activeKeys, calls, fullKeysIn, keyStatus } from '../../support/keys.js';
import { onArrival, sandboxFixture, type SandboxFixture } from '../../support/sandbox.js';

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

// `--output-file -` means standard output, in `keys create` and `keys rotate`: the key alone on
// stdout, once, and never a file named "-".
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../support/harness.js';
import { calls, configProfile, fullKeysIn, keyStatus, storedKey } from '../../support/keys.js';
import { sandboxFixture, type SandboxFixture } from '../../support/sandbox.js';

let fx: SandboxFixture;
// The CLI runs in this process: a stray file named "-" would show in this process's working folder.
const strayDash = join(process.cwd(), '-');
beforeEach(async () => {
  expect(existsSync(strayDash)).toBe(false);
  fx = await sandboxFixture({ seed: false });
});
afterEach(() => {
  expect(existsSync(strayDash)).toBe(false);
  return fx.close();
});

const KEY_LINE = /^crk_[A-Za-z0-9]{20,}\n$/;

describe('keys create --output-file -', () => {
  it('the key alone on stdout, once', async () => {
    const r = await runCli(['keys', 'create', 'dash', '--output-file', '-'], { env: fx.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(KEY_LINE);
    expect(await keyStatus(fx.sandbox, r.stdout.trim())).toBe(200);
    expect(fullKeysIn(r.stderr)).toEqual([]);
  });

  it('with --save: printed once, and saved', async () => {
    const cfg = join(fx.configDir, 'cfg');
    const r = await runCli(['keys', 'create', 'dash', '--output-file', '-', '--save'], { env: { ...fx.env, CRAWL_CONFIG_DIR: cfg } });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(KEY_LINE);
    expect(JSON.parse(readFileSync(join(cfg, 'config.json'), 'utf8')).profiles.default['api-key']).toBe(r.stdout.trim());
  });

  it('with --json: refused before anything is created (both want stdout), exit 2', async () => {
    const before = fx.sandbox.requests.length;
    const r = await runCli(['keys', 'create', 'dash', '--output-file', '-', '--json'], { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr).error.message).toMatch(/--output-file - puts the key alone on stdout, where --json puts/);
    expect(calls(fx.sandbox, before)).toEqual([]);
  });
});

describe('keys rotate --output-file -', () => {
  it('key from CRAWL_API_KEY: the new key alone on stdout is where it is stored, then the old key is revoked', async () => {
    const ci = fx.sandbox.addKey('ci');
    const before = fx.sandbox.requests.length;
    const r = await runCli(['keys', 'rotate', '--yes', '--output-file', '-'], { env: { ...fx.env, CRAWL_API_KEY: ci.key } });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(KEY_LINE);
    const fresh = r.stdout.trim();
    expect(r.stderr).toContain('✓ Stored the new key in standard output');
    expect(r.stderr).toMatch(/note: CRAWL_API_KEY still holds the old key, which no longer works: set it to the new key printed on stdout/);
    expect(calls(fx.sandbox, before)).toEqual(['GET /api/keys', 'POST /api/keys', 'GET /api/keys', `DELETE /api/keys/${ci.id}`]);
    expect([await keyStatus(fx.sandbox, fresh), await keyStatus(fx.sandbox, ci.key)]).toEqual([200, 401]);
    expect(fullKeysIn(r.stderr)).toEqual([]);
  });

  it('the check fails (401): the key still goes to stdout once (a new place replaces nothing), the old key kept', async () => {
    const ci = fx.sandbox.addKey('ci');
    fx.sandbox.inject({ method: 'GET', path: '/api/keys', kind: 'status', status: 401, skip: 1, times: 1 });
    const r = await runCli(['keys', 'rotate', '--yes', '--output-file', '-'], { env: { ...fx.env, CRAWL_API_KEY: ci.key } });
    expect(r.code).toBe(4);
    expect(r.stdout).toMatch(KEY_LINE);
    expect(r.stderr).toMatch(/step 3 of 5 .*Done: created the new key .*, stored it in standard output\./);
    expect(await keyStatus(fx.sandbox, ci.key)).toBe(200);
  });

  it('a key from the config file: refused like any --output-file, nothing created (exit 2)', async () => {
    const ci = fx.sandbox.addKey('ci');
    const profile = configProfile(fx.sandbox, ci.key);
    try {
      const before = fx.sandbox.requests.length;
      const r = await runCli(['keys', 'rotate', '--yes', '--output-file', '-'], { env: { ...fx.env, ...profile.env } });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(calls(fx.sandbox, before)).toEqual([]);
      expect(storedKey(profile.file)).toBe(ci.key);
    } finally {
      profile.cleanup();
    }
  });

  it('with --json: refused before anything is created (exit 2)', async () => {
    const ci = fx.sandbox.addKey('ci');
    const before = fx.sandbox.requests.length;
    const r = await runCli(['keys', 'rotate', '--yes', '--json', '--output-file', '-'], { env: { ...fx.env, CRAWL_API_KEY: ci.key } });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(calls(fx.sandbox, before)).toEqual([]);
  });
});

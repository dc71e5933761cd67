import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../support/cli.js';
import { activeKeys, calls, configKeySetup, fullKeysIn, keyStatus, storedKey, type ConfigKeySetup } from '../../support/keys.js';
import type { SandboxFixture } from '../../support/sandbox.js';

let setup: ConfigKeySetup;
let fx: SandboxFixture;
let old: ConfigKeySetup['old'];
let profile: ConfigKeySetup['profile'];
let env: ConfigKeySetup['env'];
beforeEach(async () => {
  setup = await configKeySetup();
  ({ fx, old, profile, env } = setup);
});
afterEach(() => setup.close());

const today = (): string => new Date().toISOString().slice(0, 10);
const posts = (from: number): string[] => calls(fx.sandbox, from).filter((c) => c.startsWith('POST'));

describe('crawl keys rotate', () => {
  it('from the config: creates, checks, stores, then revokes, in that order; no key in any output', async () => {
    const before = fx.sandbox.requests.length;
    const r = await runCli(['keys', 'rotate', '--yes', '--verbose'], { env });
    expect(r.code).toBe(0);
    expect(calls(fx.sandbox, before)).toEqual(['GET /api/keys', 'POST /api/keys', 'GET /api/keys', `DELETE /api/keys/${old.id}`]);
    const fresh = storedKey(profile.file);
    expect(fresh).not.toBe(old.key);
    expect(statSync(profile.file).mode & 0o777).toBe(0o600);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(401);
    expect(await keyStatus(fx.sandbox, fresh)).toBe(200);
    const listed = (await activeKeys(fx.sandbox, fx.sandbox.key)).find((k) => fresh.startsWith(k.keyPrefix));
    expect(listed?.name).toBe(`ci (rotated ${today()})`);
    const steps = r.stderr.split('\n').filter((l) => l.startsWith('✓'));
    expect(steps).toEqual([
      `✓ Created key "ci (rotated ${today()})" (${listed?.keyPrefix})`,
      '✓ The service accepts the new key',
      `✓ Stored the new key in the config file ${profile.file} (profile "default")`,
      `✓ Revoked the old key "ci" (${old.id}, ${old.keyPrefix})`,
    ]);
    expect(r.stdout).toBe('');
    expect(fullKeysIn(r.stdout + r.stderr)).toEqual([]);
    // The profile goes on working with the new key, shown as the key in use.
    const list = await runCli(['keys', 'list'], { env });
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(`${listed?.id}\tci (rotated ${today()})\t${listed?.keyPrefix}`);
    expect(list.stdout).toMatch(/\ttrue\n/);
  });

  it('from CRAWL_API_KEY: the new key goes to a new --output-file (0600); --json reports old, new and the steps', async () => {
    const out = join(profile.dir, 'new.key');
    const r = await runCli(['keys', 'rotate', '--yes', '--json', '--output-file', out], { env: { ...env, CRAWL_API_KEY: old.key } });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const fresh = readFileSync(out, 'utf8').trim();
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const doc = JSON.parse(r.stdout);
    const listed = (await activeKeys(fx.sandbox, fx.sandbox.key)).find((k) => fresh.startsWith(k.keyPrefix));
    expect(doc).toEqual({
      old: { id: old.id, name: 'ci', prefix: old.keyPrefix },
      new: { id: listed?.id, name: `ci (rotated ${today()})`, prefix: listed?.keyPrefix },
      steps: { create: true, verify: true, store: true, revoke: true },
      storedIn: out,
    });
    expect(fullKeysIn(r.stdout)).toEqual([]);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(401);
    expect(await keyStatus(fx.sandbox, fresh)).toBe(200);
    // The config file was not touched: it is not where that key came from.
    expect(storedKey(profile.file)).toBe(old.key);
  });

  it('a key rotated before gets a fresh date, not a second suffix; plain output tells to update CRAWL_API_KEY', async () => {
    const again = fx.sandbox.addKey('ci (rotated 2020-01-01)');
    const out = join(profile.dir, 'again.key');
    const r = await runCli(['keys', 'rotate', '--yes', '--output-file', out], { env: { ...env, CRAWL_API_KEY: again.key } });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`Created key "ci (rotated ${today()})"`);
    expect(r.stderr).toMatch(/CRAWL_API_KEY still holds the old key/);
    expect(fullKeysIn(r.stdout + r.stderr)).toEqual([]);
  });

  it('checks where the new key goes before anything is created', async () => {
    const before = fx.sandbox.requests.length;
    const fromEnv = { ...env, CRAWL_API_KEY: old.key };
    const noFile = await runCli(['keys', 'rotate', '--yes'], { env: fromEnv });
    expect(noFile.code).toBe(2);
    expect(noFile.stderr).toMatch(/CRAWL_API_KEY/);
    expect(noFile.stderr).toContain('--output-file');
    const existing = join(profile.dir, 'exists.key');
    writeFileSync(existing, 'keep\n');
    const taken = await runCli(['keys', 'rotate', '--yes', '--output-file', existing], { env: fromEnv });
    expect(taken.code).toBe(2);
    expect(taken.stderr).toMatch(/already exists/);
    expect(readFileSync(existing, 'utf8')).toBe('keep\n');
    const both = await runCli(['keys', 'rotate', '--yes', '--output-file', join(profile.dir, 'x.key')], { env });
    expect(both.code).toBe(2);
    expect(existsSync(join(profile.dir, 'x.key'))).toBe(false);
    const blank = await runCli(['keys', 'rotate', '--yes', '--name', ' '], { env });
    expect(blank.code).toBe(2);
    expect(calls(fx.sandbox, before)).toEqual([]);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(200);
  });

  it('off a terminal --yes is required; on a terminal it asks, naming the key', async () => {
    const before = fx.sandbox.requests.length;
    const plain = await runCli(['keys', 'rotate'], { env });
    expect(plain.code).toBe(2);
    expect(plain.stderr).toMatch(/needs confirmation: nothing was changed/);
    expect(plain.stderr).toContain('--yes');
    const no = await runCli(['keys', 'rotate'], { env, tty: true, input: 'n\n' });
    expect(no.code).toBe(2);
    expect(no.stdout).toContain(`Rotate key "ci" (${old.id}, ${old.keyPrefix})?`);
    expect(posts(before)).toEqual([]);
    expect(storedKey(profile.file)).toBe(old.key);

    const yes = await runCli(['keys', 'rotate', '--name', 'ci-2'], { env, tty: true, input: 'y\n' });
    expect(yes.code).toBe(0);
    expect(yes.stdout).toContain('Created key "ci-2"');
    expect(fullKeysIn(yes.stdout)).toEqual([]);
    expect(storedKey(profile.file)).not.toBe(old.key);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(401);
  });
});

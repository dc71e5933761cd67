import type { ExpectStatic } from 'vitest';
// Helpers for the `crawl keys` tests: a profile whose key lives in the config file, and
// observers that ask the sandbox directly (real HTTP) which keys are active.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Sandbox } from '../../src/sandbox/index.js';
import { tempDir } from './harness.js';
import { sandboxFixture, type SandboxFixture } from './sandbox.js';

/** A config folder whose default profile holds the base URL and `key`; the environment has no key. */
export function configProfile(sandbox: Sandbox, key: string): { dir: string; file: string; env: Record<string, string | undefined>; cleanup: () => void } {
  const { dir, cleanup } = tempDir('crawl-keys-');
  const cfg = join(dir, 'cfg');
  mkdirSync(cfg, { mode: 0o700 });
  const file = join(cfg, 'config.json');
  writeFileSync(file, JSON.stringify({ profiles: { default: { 'base-url': sandbox.url, 'api-key': key } } }), { mode: 0o600 });
  return { dir: cfg, file, env: { CRAWL_CONFIG_DIR: cfg, CRAWL_API_KEY: undefined, CRAWL_BASE_URL: undefined }, cleanup };
}

/** The key the default profile of a config file holds now. */
export function storedKey(file: string): string {
  return (JSON.parse(readFileSync(file, 'utf8')) as { profiles: { default: { 'api-key': string } } }).profiles.default['api-key'];
}

/** The HTTP status the sandbox gives `key` on GET /api/keys: 200 active, 401 revoked or unknown. */
export async function keyStatus(sandbox: Sandbox, key: string): Promise<number> {
  const res = await fetch(`${sandbox.url}/api/keys`, { headers: { authorization: `Bearer ${key}` } });
  await res.arrayBuffer();
  return res.status;
}

export interface ListedKey {
  id: string;
  name: string;
  keyPrefix: string;
  lastUsedAt: string | null;
  createdAt: string;
}

/** The active keys, as seen with an observer key that the test never revokes. */
export async function activeKeys(sandbox: Sandbox, observer: string): Promise<ListedKey[]> {
  const res = await fetch(`${sandbox.url}/api/keys`, { headers: { authorization: `Bearer ${observer}` } });
  if (res.status !== 200) throw new Error(`observer key refused: HTTP ${res.status}`);
  return ((await res.json()) as { keys: ListedKey[] }).keys;
}

/** Service requests received since index `from`, as `METHOD path`. */
export function calls(sandbox: Sandbox, from = 0): string[] {
  return sandbox.requests.slice(from).map((r) => `${r.method} ${r.url}`);
}

/** The full keys (>= 20 characters, `crk_...`) that appear in a text. */
export function fullKeysIn(text: string): string[] {
  return text.match(/crk_[A-Za-z0-9]{20,}/g) ?? [];
}

export interface ConfigKeySetup {
  fx: SandboxFixture;
  old: { id: string; key: string; keyPrefix: string };
  profile: ReturnType<typeof configProfile>;
  env: Record<string, string | undefined>;
  close(): Promise<void>;
}

/** A sandbox with no demo data and one key, "ci", stored in the profile's config file: the key rotate replaces. */
export async function configKeySetup(): Promise<ConfigKeySetup> {
  const fx = await sandboxFixture({ seed: false });
  const old = fx.sandbox.addKey('ci');
  const profile = configProfile(fx.sandbox, old.key);
  return {
    fx,
    old,
    profile,
    env: { ...fx.env, ...profile.env },
    async close() {
      profile.cleanup();
      await fx.close();
    },
  };
}

/**
 * After two `keys rotate` of one profile raced: every key the race created that the service still
 * accepts is somewhere the user has it (the config or a stdout), exactly once; the config holds a
 * key the service accepts; no run hung or printed a full key on stderr; a loser says why.
 */
export async function expectNoRotatedKeyLost(
  expect: ExpectStatic,
  sandbox: Sandbox,
  configFile: string,
  oldName: string,
  results: Array<{ stdout: string; stderr: string; code: number | null; timedOut: boolean }>,
): Promise<void> {
  const stored = storedKey(configFile);
  const printed = results.map((r) => r.stdout.trim()).filter((s) => s !== '');
  // The keys this race created (named after the old one) that the service still accepts.
  const fresh = (await activeKeys(sandbox, sandbox.key)).filter((k) => k.name.startsWith(`${oldName} (rotated `));
  for (const key of fresh) {
    const holders = [stored, ...printed].filter((k) => k.startsWith(key.keyPrefix));
    expect(holders, `key ${key.id} (${key.keyPrefix}) is nowhere`).toHaveLength(1);
  }
  const listed = await activeKeys(sandbox, sandbox.key);
  expect(listed.some((k) => stored.startsWith(k.keyPrefix))).toBe(true);
  for (const r of results) {
    expect(r.timedOut).toBe(false);
    expect(fullKeysIn(r.stderr)).toEqual([]);
    if (r.code !== 0) expect(r.stderr).toMatch(/^crawl: /m);
  }
}

/**
 * A `keys rotate` interrupted while it stored the new key: exit 130, nothing on stdout, the new
 * key stored and accepted, the old one not revoked yet (it still works), stderr saying what is
 * done and never holding a full key.
 */
export async function expectRotationStoppedAfterStoring(
  expect: ExpectStatic,
  sandbox: Sandbox,
  configFile: string,
  oldKey: string,
  r: { code: number | null; stdout: string; stderr: string },
): Promise<void> {
  expect(r.code).toBe(130);
  expect(r.stdout).toBe('');
  const stored = storedKey(configFile);
  expect(stored).not.toBe(oldKey);
  expect(await keyStatus(sandbox, stored)).toBe(200);
  expect(await keyStatus(sandbox, oldKey)).toBe(200);
  expect(r.stderr).toMatch(/step 5 of 5 \(revoke the old key\): interrupted\. Done: created the new key .*, the service accepts it, stored it in the config file/);
  expect(fullKeysIn(r.stderr)).toEqual([]);
}

// `crawl keys rotate` for a profile whose key a secret manager keeps (key-command prints it,
// key-store-command stores a new one from its stdin): the rotation flow's home is that store, run
// through real shells. Whatever fails, a working key remains where the profile reads it, and a
// key that store may not hold goes to a 0600 file, never to stdout (a CI log).
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../support/harness.js';
import { calls, fullKeysIn, keyStatus } from '../support/keys.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';

let fx: SandboxFixture;
let tmp: { dir: string; cleanup: () => void };
let old: { id: string; key: string };
let cfg: string;
let secret: string;
beforeEach(async () => {
  fx = await sandboxFixture({ seed: false });
  old = fx.sandbox.addKey('ci');
  tmp = tempDir('crawl-rotate-key-command-');
  cfg = join(tmp.dir, 'cfg');
  mkdirSync(cfg, { mode: 0o700 });
  // The secret manager: one 0600 file.
  secret = join(tmp.dir, 'secret');
  writeFileSync(secret, old.key + '\n', { mode: 0o600 });
});
afterEach(async () => {
  tmp.cleanup();
  await fx.close();
});

/** A profile that reads its key with `read` and stores a new one with `store`. */
function profile(read: string, store: string): Record<string, string | undefined> {
  const file = join(cfg, 'config.json');
  writeFileSync(file, JSON.stringify({ profiles: { default: { 'base-url': fx.sandbox.url, 'key-store': 'command', 'key-command': read, 'key-store-command': store } } }), { mode: 0o600 });
  chmodSync(file, 0o600);
  return { ...fx.env, CRAWL_API_KEY: undefined, CRAWL_CONFIG_DIR: cfg };
}

const held = (): string => readFileSync(secret, 'utf8').trim();
const rescued = (): string[] => readdirSync(cfg).filter((f) => f.startsWith('unrevoked-key-'));
const deletes = (from: number): string[] => calls(fx.sandbox, from).filter((c) => c.startsWith('DELETE'));

describe('keys rotate, the key in a secret manager (key-command / key-store-command)', () => {
  it('stores the new key through key-store-command, reads it back with key-command, then revokes the old key', async () => {
    const env = profile(`cat '${secret}'`, `cat > '${secret}.new' && mv '${secret}.new' '${secret}'`);
    const r = await runCli(['keys', 'rotate', '--yes'], { env });
    expect(r.code).toBe(0);
    const fresh = held();
    expect(fresh).not.toBe(old.key);
    expect(await keyStatus(fx.sandbox, fresh)).toBe(200);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(401);
    const config = JSON.parse(readFileSync(join(cfg, 'config.json'), 'utf8')) as { profiles: { default: Record<string, string> } };
    expect(config.profiles.default['api-key']).toBeUndefined();
    expect(config.profiles.default['key-store']).toBe('command');
    expect(r.stdout).toBe('');
    expect(fullKeysIn(r.stdout + r.stderr)).toEqual([]);
    // The profile goes on working, with the key the secret manager now holds.
    const list = await runCli(['keys', 'list'], { env });
    expect(list.code).toBe(0);
  });

  it('key-store-command fails: the old key still works where it was; the new key, which the store may hold, is kept in a 0600 file, not printed', async () => {
    const env = profile(`cat '${secret}'`, 'cat > /dev/null; exit 1');
    const before = fx.sandbox.requests.length;
    const r = await runCli(['keys', 'rotate', '--yes'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/stopped at step 4 of 5 \(store the new key in the secret manager of profile "default" \(its key-store-command\)\): key-store-command .* exited with status 1/);
    expect(held()).toBe(old.key);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(200);
    expect(deletes(before)).toEqual([]);
    const files = rescued();
    expect(files).toHaveLength(1);
    const file = join(cfg, files[0] ?? '');
    // The message says where the key is, and the hint how to finish from there.
    expect(r.stderr).toContain(`The new key is in ${file} (mode 0600)`);
    expect(r.stderr).toContain(`hint: see which key the profile reads now with \`crawl auth status\`; if it is not the new one, store it with \`crawl auth login --with-key < ${file}\``);
    expect(readFileSync(file, 'utf8').trim()).toMatch(/^crk_/);
    expect(await keyStatus(fx.sandbox, readFileSync(file, 'utf8').trim())).toBe(200);
    expect(r.stdout).toBe('');
    expect(fullKeysIn(r.stdout + r.stderr)).toEqual([]);
  });

  it('key-store-command stores it but key-command does not read it back: nothing is revoked, and the profile still reads a working key', async () => {
    // The store writes somewhere key-command does not read.
    const env = profile(`cat '${secret}'`, `cat > '${secret}.elsewhere'`);
    const before = fx.sandbox.requests.length;
    const r = await runCli(['keys', 'rotate', '--yes'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/stopped at step 4 of 5/);
    expect(deletes(before)).toEqual([]);
    const stored = readFileSync(`${secret}.elsewhere`, 'utf8').trim();
    expect(await keyStatus(fx.sandbox, stored)).toBe(200);
    expect(await keyStatus(fx.sandbox, held())).toBe(200);
    expect(rescued()).toHaveLength(1);
    expect(readFileSync(join(cfg, rescued()[0] ?? ''), 'utf8').trim()).toBe(stored);
    expect(r.stdout).toBe('');
    // The store may hold the new key: the old one is not said to be "still stored".
    expect(r.stderr).toContain(`The old key "ci" (${old.id}) is still active.`);
    expect((await runCli(['keys', 'list'], { env })).code).toBe(0);
  });
});

// `crawl keys rotate` for a profile whose key a secret manager keeps (key-command prints it,
// key-store-command stores a new one from its stdin): the rotation flow's home is that store, run
// through real shells. Whatever fails, a working key remains where the profile reads it. After a
// failed key-store-command the store is asked what it holds (key-command): the old key, and the
// new key is revoked again, leaving no copy; the new key, and the rotation goes on; no answer, and
// the new key goes to a 0600 file, never to stdout (a CI log).
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../../support/harness.js';
import { activeKeys, calls, fullKeysIn, keyStatus } from '../../support/keys.js';
import { sandboxFixture, type SandboxFixture } from '../../support/sandbox.js';

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

  it('key-store-command fails and key-command still prints the old key: the new key is revoked again, no copy left anywhere, exit 1 saying the old key is still the working one', async () => {
    const env = profile(`cat '${secret}'`, 'cat > /dev/null; exit 1');
    const before = fx.sandbox.requests.length;
    const r = await runCli(['keys', 'rotate', '--yes'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/stopped at step 4 of 5 \(store the new key in the secret manager of profile "default" \(its key-store-command\)\): key-store-command .* exited with status 1/);
    expect(r.stderr).toContain('then revoked the new key again (rolled back).');
    expect(r.stderr).toContain('Asked afterwards, the secret manager of profile "default" (its key-store-command) still holds the old key: the new one was kept nowhere, so no copy of it is left.');
    expect(r.stderr).toContain(`The old key "ci" (${old.id}) is still the working one, where it was.`);
    expect(held()).toBe(old.key);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(200);
    // The new key: revoked, and listed nowhere.
    const revoked = deletes(before);
    expect(revoked).toHaveLength(1);
    expect(revoked[0]).not.toBe(`DELETE /api/keys/${old.id}`);
    expect((await activeKeys(fx.sandbox, old.key)).filter((k) => k.name.startsWith('ci (rotated'))).toEqual([]);
    expect(rescued()).toEqual([]);
    expect(r.stdout).toBe('');
    expect(fullKeysIn(r.stdout + r.stderr)).toEqual([]);
    // The profile goes on working with the old key.
    expect((await runCli(['keys', 'list'], { env })).code).toBe(0);
  });

  it('key-store-command stores the key, then fails: key-command prints the new key, so the rotation goes on (said), the old key revoked', async () => {
    const env = profile(`cat '${secret}'`, `cat > '${secret}.new' && mv '${secret}.new' '${secret}'; exit 1`);
    const r = await runCli(['keys', 'rotate', '--yes'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/crawl: warning: key-store-command .* failed: it exited with status 1.*; but the secret manager of profile "default" \(its key-store-command\) holds the new key, so the rotation goes on\n/);
    const fresh = held();
    expect(fresh).not.toBe(old.key);
    expect(await keyStatus(fx.sandbox, fresh)).toBe(200);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(401);
    expect(rescued()).toEqual([]);
    expect(r.stdout).toBe('');
    expect(fullKeysIn(r.stdout + r.stderr)).toEqual([]);
  });

  it('key-store-command fails and key-command gives no answer: the new key, which the store may hold, is kept in a 0600 file, not printed', async () => {
    // The store loses everything: the key the profile read is gone too.
    const env = profile(`cat '${secret}'`, `cat > /dev/null; rm '${secret}'; exit 1`);
    const before = fx.sandbox.requests.length;
    const r = await runCli(['keys', 'rotate', '--yes'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/stopped at step 4 of 5 \(store the new key in the secret manager of profile "default" \(its key-store-command\)\): key-store-command .* exited with status 1/);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(200);
    expect(deletes(before)).toEqual([]);
    const files = rescued();
    expect(files).toHaveLength(1);
    const file = join(cfg, files[0] ?? '');
    // The message says where the key is, and the hint how to finish from there.
    expect(r.stderr).toContain(`The new key is in ${file} (mode 0600)`);
    expect(r.stderr).toContain(`hint: see which key the profile reads now with \`crawl auth status\`; if it is not the new one, store it with \`crawl auth login --with-key < ${file}\``);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8').trim()).toMatch(/^crk_/);
    expect(await keyStatus(fx.sandbox, readFileSync(file, 'utf8').trim())).toBe(200);
    expect(r.stdout).toBe('');
    expect(fullKeysIn(r.stdout + r.stderr)).toEqual([]);
  });

  it('key-store-command stores it where key-command does not read it: the store holds the old key, so the new key is revoked again; the profile still reads a working key', async () => {
    // The store writes somewhere key-command does not read.
    const env = profile(`cat '${secret}'`, `cat > '${secret}.elsewhere'`);
    const r = await runCli(['keys', 'rotate', '--yes'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/stopped at step 4 of 5 \(.*\): key-command \(cat …\) does not print the new key after key-store-command stored it/);
    const stored = readFileSync(`${secret}.elsewhere`, 'utf8').trim();
    expect(await keyStatus(fx.sandbox, stored)).toBe(401);
    expect(await keyStatus(fx.sandbox, held())).toBe(200);
    expect(held()).toBe(old.key);
    expect(rescued()).toEqual([]);
    expect(r.stdout).toBe('');
    expect((await runCli(['keys', 'list'], { env })).code).toBe(0);
  });
});

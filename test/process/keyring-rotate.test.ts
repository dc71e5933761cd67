// `crawl keys rotate` for a profile whose key is in the system keyring (GNOME Keyring on a private
// bus, dbus-daemon's and dbus-broker's in turn), with a fault at each step: whatever fails, a
// working key remains, and the keyring holds the key the message says it holds. Each test has a
// sandbox of its own (so an entry of its own); the keyring is shared, and unlocked again after each.
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempDir } from '../support/harness.js';
import { fullKeysIn, keyStatus } from '../support/keys.js';
import { onArrival, sandboxFixture, type SandboxFixture } from '../support/sandbox.js';
import { realClock } from '../../src/platform/clock.js';
import { describeEachBus, startKeyringSession, type KeyringSession } from '../support/keyring-session.js';

let fx: SandboxFixture;
let s: KeyringSession;
let dir: string;
let cleanup: () => void;
let old: { id: string; key: string };
let entry: Record<string, string>;


function crawl(args: string[], input?: string) {
  return runCli(args, {
    clock: realClock,
    env: { CRAWL_BASE_URL: fx.sandbox.url, CRAWL_API_KEY: undefined, CRAWL_CONFIG_DIR: dir, ...s.env, CRAWL_KEYRING_TIMEOUT: '3' },
    ...(input === undefined ? {} : { input }),
  });
}

const inKeyring = (): Promise<string> => s.secretTool(['lookup', 'service', entry['keyring-service'] ?? '', 'username', entry['keyring-account'] ?? '']);

describeEachBus('keys rotate into the keyring on %s, a fault at each step', { tools: ['secret-tool'] }, (bus) => {
  beforeAll(async () => {
    s = await startKeyringSession({ bus });
  });
  afterAll(() => s?.close());
  beforeEach(async () => {
    fx = await sandboxFixture({ seed: false });
    ({ dir, cleanup } = tempDir());
    old = fx.sandbox.addKey('rotate-me');
    const login = await crawl(['auth', 'login', '--with-key'], old.key);
    expect(login.code, login.stderr).toBe(0);
    entry = (JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { profiles: { default: Record<string, string> } }).profiles.default;
  });
  afterEach(async () => {
    cleanup();
    await s.unlock();
    await fx.close();
  });

  it('step 2, the service cannot create a key: nothing changed, the keyring holds the old key', async () => {
    fx.sandbox.inject({ method: 'POST', path: '/api/keys', kind: 'status', status: 500 });
    const r = await crawl(['keys', 'rotate', '--yes']);
    expect(r.code).not.toBe(0);
    expect(await inKeyring()).toBe(old.key);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(200);
    expect(fullKeysIn(r.stdout + r.stderr)).toEqual([]);
  });

  it('step 3, the service does not accept the new key: the keyring keeps the old key, which still works', async () => {
    fx.sandbox.inject({ method: 'GET', path: '/api/keys', kind: 'status', status: 401, skip: 1, times: 1 });
    const r = await crawl(['keys', 'rotate', '--yes']);
    expect(r.code).not.toBe(0);
    expect(await inKeyring()).toBe(old.key);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(200);
  });

  it('step 4, the keyring is locked when the new key is stored: the old key still works, the new key is handed over, not lost', async () => {
    // Locked while the service checks the new key: after crawl read the old key, before it stores the new one.
    let checks = 0;
    onArrival(fx.sandbox, (req) => req.method === 'GET' && req.url.startsWith('/api/keys') && ++checks === 2, () => void s.lock());
    const r = await crawl(['keys', 'rotate', '--yes']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('the system keyring (Secret Service) is locked');
    expect(await keyStatus(fx.sandbox, old.key)).toBe(200);
    const printed = r.stdout.trim();
    expect(printed).toMatch(/^crk_/);
    expect(await keyStatus(fx.sandbox, printed)).toBe(200);
    expect(fullKeysIn(r.stderr)).toEqual([]);
  });

  it('step 5, the old key cannot be revoked: the keyring holds the new key, the message says the old one is still active', async () => {
    fx.sandbox.inject({ method: 'DELETE', path: `/api/keys/${old.id}`, kind: 'status', status: 500, times: 1 });
    const r = await crawl(['keys', 'rotate', '--yes']);
    expect(r.code).not.toBe(0);
    const stored = await inKeyring();
    expect(stored).toMatch(/^crk_/);
    expect(stored).not.toBe(old.key);
    expect(await keyStatus(fx.sandbox, stored)).toBe(200);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(200);
    expect(r.stdout + r.stderr).not.toContain(stored);
  });

  it('no fault: the entry is replaced in place, the old key revoked, no key printed', async () => {
    const r = await crawl(['keys', 'rotate', '--yes']);
    expect(r.code, r.stderr).toBe(0);
    const stored = await inKeyring();
    expect(stored).not.toBe(old.key);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(401);
    expect(fullKeysIn(r.stdout + r.stderr)).toEqual([]);
  });

  it('not due: the keyring keeps the key, exit 0; due: the entry is replaced and the old key revoked', async () => {
    // The key logged in before each test was made just now.
    const young = await crawl(['keys', 'rotate', '--yes', '--if-older-than', '30d']);
    expect(young.code, young.stderr).toBe(0);
    expect(young.stderr).toMatch(/^Not due: the key in use "rotate-me" .* is less than a minute old /);
    expect(await inKeyring()).toBe(old.key);

    const aged = fx.sandbox.addKey('aged', { createdAt: new Date(Date.now() - 40 * 86_400_000).toISOString() });
    const login = await crawl(['auth', 'login', '--with-key'], aged.key);
    expect(login.code, login.stderr).toBe(0);
    const r = await crawl(['keys', 'rotate', '--yes', '--if-older-than', '30d']);
    expect(r.code, r.stderr).toBe(0);
    const stored = await inKeyring();
    expect(stored).not.toBe(aged.key);
    expect(await keyStatus(fx.sandbox, stored)).toBe(200);
    expect(await keyStatus(fx.sandbox, aged.key)).toBe(401);
    expect(fullKeysIn(r.stdout + r.stderr)).toEqual([]);
  });
});

// Bus addresses against a real bus (dbus-daemon) and a real keyring (GNOME Keyring) on it
// (test/support/keyring-session.ts): a `;` list whose first entry is gone, a socket under a
// folder whose name needs escaping (given %-escaped, and found through $XDG_RUNTIME_DIR), an
// abstract socket, and an address crawl cannot use while a keyring runs. Each login must end in
// the keyring (secret-tool finds the key) or in an error: never in plaintext.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempDir } from '../support/harness.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';
import { realClock } from '../../src/platform/clock.js';
import { reachesAbstractSockets } from '../../src/platform/host.js';
import { KEYRING_TOOLS, startKeyringSession, type KeyringSession, type KeyringSessionOptions } from '../support/keyring-session.js';
import { needs } from '../support/tools.js';

let fx: SandboxFixture;
beforeAll(async () => {
  fx = await sandboxFixture();
});
afterAll(() => fx.close());

type Profile = Record<string, string>;

async function withSession<T>(options: KeyringSessionOptions, work: (s: KeyringSession) => Promise<T>): Promise<T> {
  const session = await startKeyringSession(options);
  try {
    return await work(session);
  } finally {
    await session.close();
  }
}

/** `auth login --with-key` with this session's environment and `env` over it, on the real clock. */
async function login(s: KeyringSession, env: Record<string, string | undefined>): Promise<{ code: number; stderr: string; key: string; dir: string; cleanup: () => void }> {
  const { dir, cleanup } = tempDir();
  const key = fx.sandbox.addKey('bus-address').key;
  const r = await runCli(['auth', 'login', '--with-key'], {
    clock: realClock,
    env: { CRAWL_BASE_URL: fx.sandbox.url, CRAWL_API_KEY: undefined, CRAWL_CONFIG_DIR: dir, ...s.env, CRAWL_KEYRING_TIMEOUT: '5', ...env },
    input: key,
  });
  return { code: r.code ?? -1, stderr: r.stderr, key, dir, cleanup };
}

/** The login's key is in the keyring, as secret-tool finds it, and nowhere in the config file. */
async function expectInKeyring(s: KeyringSession, r: Awaited<ReturnType<typeof login>>): Promise<void> {
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toContain('The key is stored in the system keyring (Secret Service)');
  const text = readFileSync(join(r.dir, 'config.json'), 'utf8');
  expect(text).not.toContain(r.key);
  const profile = (JSON.parse(text) as { profiles: Record<string, Profile> }).profiles.default ?? {};
  expect(profile['key-store']).toBe('keyring');
  expect(await s.secretTool(['lookup', 'service', profile['keyring-service'] ?? '', 'username', profile['keyring-account'] ?? ''])).toBe(r.key);
  r.cleanup();
}

describe('every form of a bus address, on a real bus', needs(...KEYRING_TOOLS, 'secret-tool'), () => {
  it('unix:path=/gone;unix:path=<live>: the live bus is used, and the key goes into its keyring', async () => {
    await withSession({}, async (s) => {
      await expectInKeyring(s, await login(s, { DBUS_SESSION_BUS_ADDRESS: `unix:path=/gone/bus;${s.address}` }));
    });
  });

  it('a bus socket under a folder named "bü🦀s;,%": given %-escaped as dbus-daemon prints it, and found as $XDG_RUNTIME_DIR/bus', async () => {
    await withSession({ listen: 'runtime', runtimeName: 'bü🦀s;,%' }, async (s) => {
      // dbus-daemon escapes the folder's bytes itself.
      expect(s.address).toContain('/b%c3%bc%f0%9f%a6%80s%3b%2c%25/bus');
      await expectInKeyring(s, await login(s, {}));
      await expectInKeyring(s, await login(s, { DBUS_SESSION_BUS_ADDRESS: undefined }));
    });
  });

  it('an abstract socket: used where this Node can reach one; elsewhere an error naming it, and nothing written', async () => {
    await withSession({ listen: 'abstract' }, async (s) => {
      const abstract = s.address.split(';').find((entry) => entry.startsWith('unix:abstract='));
      expect(abstract).toBeDefined();
      const r = await login(s, { DBUS_SESSION_BUS_ADDRESS: abstract });
      if (reachesAbstractSockets()) {
        await expectInKeyring(s, r);
      } else {
        expect(r.code).toBe(1);
        expect(r.stderr).toMatch(/^crawl: the system keyring cannot be reached by crawl: the session bus address has no entry crawl can use: unix:abstract=, which this Node cannot reach \(Node 22 and later can\)\nhint: .*`crawl auth login --insecure-storage`\n$/);
        expect(existsSync(join(r.dir, 'config.json'))).toBe(false);
        r.cleanup();
      }
    });
  });

  it('an address of entries crawl cannot use, while a keyring runs: exit 1 naming them and --insecure-storage; no key anywhere', async () => {
    await withSession({}, async (s) => {
      const r = await login(s, { DBUS_SESSION_BUS_ADDRESS: 'tcp:host=127.0.0.1,port=4242;autolaunch:' });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^crawl: the system keyring cannot be reached by crawl: the session bus address has no entry crawl can use: the tcp: transport, which crawl does not speak; the autolaunch: transport, which crawl does not speak\nhint: .*CRAWL_API_KEY.*`crawl auth login --insecure-storage`\n$/);
      expect(existsSync(join(r.dir, 'config.json')) ? readFileSync(join(r.dir, 'config.json'), 'utf8') : '').not.toContain('api-key');
      expect(await s.secretTool(['search', '--all', 'service', `crawl:${new URL(fx.sandbox.url).origin}`])).toBe('');
      r.cleanup();
    });
  });
});

// The system keyring for real: GNOME Keyring on a private session bus per test
// (test/support/keyring-session.ts), the CLI pointed at it through its environment, and
// secret-tool to check independently what was stored. The runs are in this process on the real
// clock (a keyring call is bounded by real time); their env never names the developer's bus.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempDir, type RunOptions } from '../support/harness.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';
import { realClock } from '../../src/platform/clock.js';
import { maskKey } from '../../src/text/mask.js';
import { KEYRING_TOOLS, startKeyringSession, type KeyringSession } from '../support/keyring-session.js';
import { needs } from '../support/tools.js';

let fx: SandboxFixture;
beforeAll(async () => {
  fx = await sandboxFixture();
});
afterAll(() => fx.close());

type Profile = Record<string, string>;
const profileOf = (dir: string, name = 'default'): Profile => (JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { profiles: Record<string, Profile> }).profiles[name] ?? {};

async function withSession<T>(work: (s: KeyringSession) => Promise<T>, options: { keyring?: boolean } = {}): Promise<T> {
  const session = await startKeyringSession(options);
  try {
    return await work(session);
  } finally {
    await session.close();
  }
}

/** A CLI run against the sandbox and this session's bus only, on the real clock. */
function crawl(session: KeyringSession, dir: string, args: string[], extra: { env?: Record<string, string | undefined>; input?: string; tty?: boolean; onSpawn?: RunOptions['onSpawn'] } = {}) {
  return runCli(args, {
    ...(extra.onSpawn === undefined ? {} : { onSpawn: extra.onSpawn }),
    clock: realClock,
    env: { CRAWL_BASE_URL: fx.sandbox.url, CRAWL_API_KEY: undefined, CRAWL_CONFIG_DIR: dir, ...session.env, CRAWL_KEYRING_TIMEOUT: '3', ...extra.env },
    ...(extra.input === undefined ? {} : { input: extra.input }),
    ...(extra.tty === undefined ? {} : { tty: extra.tty }),
  });
}

describe('a key in the system keyring (GNOME Keyring, Secret Service)', needs(...KEYRING_TOOLS, 'secret-tool'), () => {
  it('login -> status -> job -> logout: the key is in the keyring (secret-tool finds it), never in the config file', async () => {
    await withSession(async (s) => {
      const { dir, cleanup } = tempDir();
      const key = fx.sandbox.addKey('keyring').key;
      const login = await crawl(s, dir, ['auth', 'login', '--with-key'], { input: key });
      expect(login.code, login.stderr).toBe(0);
      expect(login.stderr).toContain('The key is stored in the system keyring (Secret Service)');
      const profile = profileOf(dir);
      expect(profile['key-store']).toBe('keyring');
      expect(profile['api-key']).toBeUndefined();
      expect(readFileSync(join(dir, 'config.json'), 'utf8')).not.toContain(key);
      expect(profile['keyring-service']).toBe(`crawl:${new URL(fx.sandbox.url).origin}`);
      expect(profile['keyring-account']).toMatch(/^default:[0-9a-f]{12}$/);
      // Checked from outside crawl: the entry under its documented names holds the key.
      expect(await s.secretTool(['lookup', 'service', profile['keyring-service'] ?? '', 'username', profile['keyring-account'] ?? ''])).toBe(key);

      const status = await crawl(s, dir, ['auth', 'status', '--json']);
      expect(status.code, status.stderr).toBe(0);
      expect(JSON.parse(status.stdout)).toMatchObject({ apiKey: maskKey(key), apiKeySource: 'config', keyStore: 'keyring', keyLocation: 'system keyring (Secret Service)', plaintext: false, accepted: true });

      const job = await crawl(s, dir, ['job', 'status', 'demo-small', '--json']);
      expect(job.code, job.stderr).toBe(0);
      expect(job.stdout + job.stderr).not.toContain(key);

      const logout = await crawl(s, dir, ['auth', 'logout']);
      expect(logout.code, logout.stderr).toBe(0);
      expect(logout.stderr).toBe('Removed the key of profile "default" from the system keyring (Secret Service)\n');
      expect(await s.secretTool(['lookup', 'service', profile['keyring-service'] ?? '', 'username', profile['keyring-account'] ?? ''])).toBe('');
      expect(profileOf(dir)).toEqual({ 'base-url': `${fx.sandbox.url}/` });
      cleanup();
    });
  });

  it('two config folders with the same profile and service keep two entries: neither overwrites the other', async () => {
    await withSession(async (s) => {
      const a = tempDir();
      const b = tempDir();
      const keyA = fx.sandbox.addKey('folder-a').key;
      const keyB = fx.sandbox.addKey('folder-b').key;
      expect((await crawl(s, a.dir, ['auth', 'login', '--with-key'], { input: keyA })).code).toBe(0);
      expect((await crawl(s, b.dir, ['auth', 'login', '--with-key'], { input: keyB })).code).toBe(0);
      expect(profileOf(a.dir)['keyring-account']).not.toBe(profileOf(b.dir)['keyring-account']);
      const [tokenA, tokenB] = await Promise.all([crawl(s, a.dir, ['auth', 'token']), crawl(s, b.dir, ['auth', 'token'])]);
      expect(tokenA.stdout).toBe(keyA + '\n');
      expect(tokenB.stdout).toBe(keyB + '\n');
      a.cleanup();
      b.cleanup();
    });
  });

  it('a plaintext profile keeps working, status points at the plaintext, and login again moves it into the keyring', async () => {
    await withSession(async (s) => {
      const { dir, cleanup } = tempDir();
      const key = fx.sandbox.addKey('plaintext').key;
      expect((await crawl(s, dir, ['auth', 'login', '--with-key', '--insecure-storage'], { input: key })).code).toBe(0);
      expect(profileOf(dir)['api-key']).toBe(key);
      const before = await crawl(s, dir, ['auth', 'status']);
      expect(before.code).toBe(0);
      expect(before.stderr).toContain('note: the key is in plaintext in the config file: move it into the system keyring with `crawl auth login`');
      const moved = await crawl(s, dir, ['auth', 'login', '--with-key'], { input: key });
      expect(moved.code, moved.stderr).toBe(0);
      expect(moved.stderr).toContain('The key is stored in the system keyring (Secret Service) (moved out of the plaintext config file)');
      expect(readFileSync(join(dir, 'config.json'), 'utf8')).not.toContain(key);
      expect((await crawl(s, dir, ['auth', 'token'])).stdout).toBe(key + '\n');
      cleanup();
    });
  });

  it('a config that names a keyring entry this machine does not have says so, and how to log in here (exit 2)', async () => {
    await withSession(async (s) => {
      const { dir, cleanup } = tempDir();
      const key = fx.sandbox.addKey('synced').key;
      expect((await crawl(s, dir, ['auth', 'login', '--with-key'], { input: key })).code).toBe(0);
      // The same config on another machine: a keyring of its own, without that entry.
      await withSession(async (other) => {
        const r = await crawl(other, dir, ['job', 'status', 'demo-small']);
        expect(r.code).toBe(2);
        expect(r.stderr).toMatch(/^crawl: profile "default" keeps its key in the system keyring \(Secret Service\), which holds no key for it on this machine\nhint: log in here with `crawl auth login`, or set CRAWL_API_KEY\n$/);
      });
      cleanup();
    });
  });

  it('concurrent logins to one profile: the config and the keyring entry agree on one of the keys (the lock)', async () => {
    await withSession(async (s) => {
      const { dir, cleanup } = tempDir();
      const keys = [1, 2, 3, 4].map((i) => fx.sandbox.addKey(`race-${i}`).key);
      const runs = await Promise.all(keys.map((key) => runCli(['auth', 'login', '--with-key', '--no-verify'], { process: true, env: { CRAWL_BASE_URL: fx.sandbox.url, CRAWL_API_KEY: undefined, CRAWL_CONFIG_DIR: dir, ...s.env }, input: key })));
      for (const r of runs) expect(r.code, r.stderr).toBe(0);
      const profile = profileOf(dir);
      const stored = await s.secretTool(['lookup', 'service', profile['keyring-service'] ?? '', 'username', profile['keyring-account'] ?? '']);
      expect(keys).toContain(stored);
      expect((await crawl(s, dir, ['auth', 'token'])).stdout).toBe(stored + '\n');
      // One entry for the profile, not one per login.
      expect((await s.secretTool(['search', '--all', 'service', profile['keyring-service'] ?? ''])).match(/^\[/gm)?.length).toBe(1);
      cleanup();
    });
  });

  it('keys rotate puts the new key into the keyring entry, then revokes the old key', async () => {
    await withSession(async (s) => {
      const { dir, cleanup } = tempDir();
      const old = fx.sandbox.addKey('to-rotate').key;
      expect((await crawl(s, dir, ['auth', 'login', '--with-key'], { input: old })).code).toBe(0);
      const entry = profileOf(dir);
      const r = await crawl(s, dir, ['keys', 'rotate', '--yes']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout + r.stderr).not.toContain(old);
      const stored = await s.secretTool(['lookup', 'service', entry['keyring-service'] ?? '', 'username', entry['keyring-account'] ?? '']);
      expect(stored).toMatch(/^crk_/);
      expect(stored).not.toBe(old);
      expect(r.stdout + r.stderr).not.toContain(stored);
      // The same entry, replaced: the config still names it.
      expect(profileOf(dir)['keyring-account']).toBe(entry['keyring-account']);
      expect((await crawl(s, dir, ['auth', 'status', '--json'])).code).toBe(0);
      cleanup();
    });
  });
});

describe('when the keyring cannot be used', needs(...KEYRING_TOOLS), () => {
  it('no Secret Service on the bus: login stores into the config file and says why; --store keyring is an error', async () => {
    await withSession(
      async (s) => {
        const { dir, cleanup } = tempDir();
        const key = fx.sandbox.addKey('no-service').key;
        const named = await crawl(s, dir, ['auth', 'login', '--with-key', '--store', 'keyring'], { input: key });
        expect(named.code).toBe(1);
        expect(named.stderr).toMatch(/^crawl: no system keyring is available: no Secret Service on the session bus\n/);
        expect(existsSync(join(dir, 'config.json'))).toBe(false);
        const fallback = await crawl(s, dir, ['auth', 'login', '--with-key'], { input: key });
        expect(fallback.code, fallback.stderr).toBe(0);
        expect(fallback.stderr).toContain(`crawl: no system keyring is available (no Secret Service on the session bus): the key is stored in plaintext in ${join(dir, 'config.json')} (mode 0600)\n`);
        expect(profileOf(dir)['api-key']).toBe(key);
        cleanup();
      },
      { keyring: false },
    );
  });

  it('a locked keyring, off a terminal: an error naming the store and the ways around it, at once (exit 1)', async () => {
    await withSession(async (s) => {
      const { dir, cleanup } = tempDir();
      const key = fx.sandbox.addKey('locked').key;
      expect((await crawl(s, dir, ['auth', 'login', '--with-key'], { input: key })).code).toBe(0);
      await s.lock();
      const r = await crawl(s, dir, ['job', 'status', 'demo-small']);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        'crawl: the system keyring (Secret Service) is locked\n' +
          'hint: unlock it on the desktop, or from a shell (over SSH too): `gnome-keyring-daemon --unlock`, type the keyring password, then press Ctrl-D; or set CRAWL_API_KEY for this shell; or keep the key in the config file instead: `crawl auth login --insecure-storage`\n',
      );
      // Never a silent fall back to plaintext.
      expect(readFileSync(join(dir, 'config.json'), 'utf8')).not.toContain(key);
      // CRAWL_API_KEY is the way around it.
      const withEnv = await crawl(s, dir, ['job', 'status', 'demo-small'], { env: { CRAWL_API_KEY: key } });
      expect(withEnv.code, withEnv.stderr).toBe(0);
      cleanup();
    });
  });

  it('a locked keyring on a terminal, whose unlock prompt nobody answers: the bounded wait ends in an error (exit 1); auth login asks it before the key, and never shows its prompt', async () => {
    // A session each: GNOME Keyring does not prompt again while its first prompt hangs.
    for (const args of [['auth', 'token'], ['auth', 'login']]) {
      await withSession(async (s) => {
        const { dir, key, cleanup } = await loggedIn(s, 'prompt');
        await s.lock();
        await s.silentPrompter();
        const r = await crawl(s, dir, args, { tty: true, env: { CRAWL_KEYRING_TIMEOUT: '1' } });
        expect(r.code).toBe(1);
        expect(r.stdout).toContain('the system keyring (Secret Service) is locked: unlock it in the dialog on your desktop (waiting up to 1 s; Ctrl-C stops)');
        expect(r.stdout).toContain('crawl: the system keyring (Secret Service) stayed locked: nobody unlocked it within 1 s');
        expect(r.stdout).not.toContain(key);
        expect(r.stdout).not.toContain('Paste your API key');
        cleanup();
      });
    }
  });

  it('Ctrl-C while waiting for an unlock ends the wait at once (exit 130)', async () => {
    await withSession(async (s) => {
      const { dir, cleanup } = tempDir();
      const key = fx.sandbox.addKey('interrupt').key;
      expect((await crawl(s, dir, ['auth', 'login', '--with-key'], { input: key })).code).toBe(0);
      await s.lock();
      await s.silentPrompter();
      const r = await crawl(s, dir, ['auth', 'token'], {
        tty: true,
        env: { CRAWL_KEYRING_TIMEOUT: '600' },
        onSpawn: (child, output) => {
          // Interrupted once crawl says it waits for the dialog: not before, not by a timer.
          const check = (): void => {
            if (output.stdout().includes('waiting up to 600 s')) child.kill('SIGINT');
            else setImmediate(check);
          };
          check();
        },
      });
      expect(r.code).toBe(130);
      expect(r.stdout).not.toContain(key);
      cleanup();
    });
  });
});

/** A shell without the desktop session's bus, as over SSH (`env -u DBUS_SESSION_BUS_ADDRESS`). */
const NO_BUS = { DBUS_SESSION_BUS_ADDRESS: undefined, XDG_RUNTIME_DIR: undefined };

/** Every `crawl auth login` a text names: none of them may be a plain login, which cannot reach the keyring either. */
const logins = (text: string): string[] => text.match(/`crawl auth login[^`]*`/g) ?? [];

/** A config folder whose profile logged in with a new key `name` into this session's keyring; `lookup` asks secret-tool what its entry holds. */
async function loggedIn(s: KeyringSession, name: string): Promise<{ dir: string; key: string; entry: Profile; lookup: () => Promise<string>; cleanup: () => void }> {
  const { dir, cleanup } = tempDir();
  const key = fx.sandbox.addKey(name).key;
  const login = await crawl(s, dir, ['auth', 'login', '--with-key'], { input: key });
  expect(login.code, login.stderr).toBe(0);
  const entry = profileOf(dir);
  const lookup = (): Promise<string> => s.secretTool(['lookup', 'service', entry['keyring-service'] ?? '', 'username', entry['keyring-account'] ?? '']);
  return { dir, key, entry, lookup, cleanup };
}

describe('a profile on the keyring, from a shell without its bus (SSH): never moved to plaintext unasked', needs(...KEYRING_TOOLS, 'secret-tool'), () => {
  it('auth login again: exit 1, the config file and the keyring entry as they were, and the ways forward', async () => {
    await withSession(async (s) => {
      const { dir, key, lookup, cleanup } = await loggedIn(s, 'ssh');
      const config = readFileSync(join(dir, 'config.json'), 'utf8');
      const other = fx.sandbox.addKey('ssh-other').key;
      const before = fx.sandbox.requests.length;
      const r = await crawl(s, dir, ['auth', 'login', '--with-key'], { input: other, env: NO_BUS });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^crawl: the system keyring \(Secret Service\) cannot be reached here: no session bus .*; profile "default" keeps its key in the system keyring \(Secret Service\), and it moves to the plaintext config file only when asked\nhint: .*set CRAWL_API_KEY for this shell.*\n$/);
      expect(logins(r.stderr)).toEqual(['`crawl auth login --insecure-storage`']);
      expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(config);
      expect(await lookup()).toBe(key);
      // Found out before the key was checked with the service.
      expect(fx.sandbox.requests.length).toBe(before);
      // Its status gives no advice that would write plaintext: the key cannot be read from here.
      const status = await crawl(s, dir, ['auth', 'status'], { env: NO_BUS });
      expect(logins(status.stderr).every((line) => line.includes('--insecure-storage'))).toBe(true);
      cleanup();
    });
  });

  it('--insecure-storage moves it, as asked: from that shell the entry cannot be removed, and it says so; with the bus, the entry is removed', async () => {
    await withSession(async (s) => {
      const { dir, key, entry, lookup, cleanup } = await loggedIn(s, 'asked');
      const away = await crawl(s, dir, ['auth', 'login', '--with-key', '--insecure-storage'], { input: key, env: NO_BUS });
      expect(away.code, away.stderr).toBe(0);
      expect(away.stderr).toContain(`crawl: warning: the old key's entry in the system keyring (Secret Service) (${entry['keyring-service']}, ${entry['keyring-account']}) could not be removed: no system keyring is available`);
      expect(profileOf(dir)['api-key']).toBe(key);
      expect(await lookup()).toBe(key);
      // No advice to move it back where no keyring can be reached; with the bus there is.
      expect((await crawl(s, dir, ['auth', 'status'], { env: NO_BUS })).stderr).not.toContain('move it into the system keyring');
      expect((await crawl(s, dir, ['auth', 'status'])).stderr).toContain('note: the key is in plaintext in the config file: move it into the system keyring with `crawl auth login`');

      // With the bus: back into the keyring, then out again, the entry removed this time.
      expect((await crawl(s, dir, ['auth', 'login', '--with-key'], { input: key })).code).toBe(0);
      const again = profileOf(dir);
      const moved = await crawl(s, dir, ['auth', 'login', '--with-key', '--insecure-storage'], { input: key });
      expect(moved.code, moved.stderr).toBe(0);
      expect(moved.stderr).not.toContain('could not be removed');
      expect(await s.secretTool(['lookup', 'service', again['keyring-service'] ?? '', 'username', again['keyring-account'] ?? ''])).toBe('');
      cleanup();
    });
  });
});

describe('auth login asks the keyring before it asks for the key', needs(...KEYRING_TOOLS, 'script'), () => {
  it('locked, off a terminal: the locked error before stdin is read or the key checked; nothing written', async () => {
    await withSession(async (s) => {
      const { dir, cleanup } = await loggedIn(s, 'locked-first');
      const config = readFileSync(join(dir, 'config.json'), 'utf8');
      await s.lock();
      const before = fx.sandbox.requests.length;
      const r = await crawl(s, dir, ['auth', 'login', '--with-key'], { input: fx.sandbox.addKey('locked-second').key });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^crawl: the system keyring \(Secret Service\) is locked\nhint: /);
      expect(fx.sandbox.requests.length).toBe(before);
      expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(config);
      cleanup();
    });
  });

  it('a pty, the keyring not reachable from this shell: the error, and the prompt never appears', async () => {
    await withSession(async (s) => {
      const { dir, cleanup } = await loggedIn(s, 'pty');
      const r = await runCli(['auth', 'login'], { process: true, tty: true, env: { CRAWL_BASE_URL: fx.sandbox.url, CRAWL_API_KEY: undefined, CRAWL_CONFIG_DIR: dir, ...s.env, ...NO_BUS } });
      expect(r.code).toBe(1);
      expect(r.stdout).toContain('crawl: the system keyring (Secret Service) cannot be reached here');
      expect(r.stdout).not.toContain('Paste your API key');
      cleanup();
    });
  });
});

describe('a secret manager in place of the keyring', needs(...KEYRING_TOOLS, 'secret-tool'), () => {
  it('config set key-command on a keyring profile: the entry is removed once the command is seen to print that key; another key is refused, nothing changed', async () => {
    await withSession(async (s) => {
      const { dir, cleanup } = tempDir();
      const key = fx.sandbox.addKey('to-command').key;
      expect((await crawl(s, dir, ['auth', 'login', '--with-key'], { input: key })).code).toBe(0);
      const entry = profileOf(dir);
      const lookup = (): Promise<string> => s.secretTool(['lookup', 'service', entry['keyring-service'] ?? '', 'username', entry['keyring-account'] ?? '']);
      const other = join(dir, 'other.key');
      writeFileSync(other, fx.sandbox.addKey('another').key + '\n', { mode: 0o600 });
      const refused = await crawl(s, dir, ['config', 'set', 'key-command', `cat ${other}`]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/^crawl: the new key-command prints another key than the one profile "default" keeps in the system keyring \(Secret Service\); nothing was changed\n/);
      expect(await lookup()).toBe(key);
      expect(profileOf(dir)).toEqual(entry);
      const same = join(dir, 'same.key');
      writeFileSync(same, key + '\n', { mode: 0o600 });
      const r = await crawl(s, dir, ['config', 'set', 'key-command', `cat ${same}`]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain('was removed from the system keyring (Secret Service): the key now comes from key-command');
      expect(await lookup()).toBe('');
      expect(profileOf(dir)).toEqual({ 'base-url': `${fx.sandbox.url}/`, 'key-store': 'command', 'key-command': `cat ${same}` });
      expect(refused.stdout + refused.stderr + r.stdout + r.stderr).not.toContain(key);
      cleanup();
    });
  });
});

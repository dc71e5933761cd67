// The system keyring for real: GNOME Keyring on a private session bus (test/support/keyring-session.ts),
// each test on dbus-daemon and on dbus-broker, the CLI pointed at it through its environment, and
// secret-tool to check independently what was stored. Tests that leave the keyring as they found
// it (a locked one is unlocked again) share a session per bus; those that need a keyring of their
// own (none at all, a crashed or replaced daemon, a prompt left waiting, a count of every entry)
// start one. The runs are
// in this process on the real clock (a keyring call is bounded by real time); their env never
// names the developer's bus.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempDir, type RunOptions, type RunResult } from '../support/harness.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';
import { realClock } from '../../src/platform/clock.js';
import { maskKey } from '../../src/text/mask.js';
import { describeEachBus, KEYRING_PASSWORD, KEYRING_TOOLS, startKeyringSession, type BusKind, type KeyringSession } from '../support/keyring-session.js';
import { needs } from '../support/tools.js';
import { spawnProcess } from '../support/spawn.js';
import { findKey } from '../support/key-forms.js';
import { DBusConnection } from '../../src/platform/dbus/connection.js';

let fx: SandboxFixture;
beforeAll(async () => {
  fx = await sandboxFixture();
});
afterAll(() => fx.close());

type Profile = Record<string, string>;

/** The unlock command the locked keyring's hint prints (src/config/key-stores/keyring-store.ts). */
const UNLOCK = "systemd-ask-password -n 'GNOME Keyring password:' | gnome-keyring-daemon --replace --unlock --daemonize";
const profileOf = (dir: string, name = 'default'): Profile => (JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { profiles: Record<string, Profile> }).profiles[name] ?? {};

async function withSession<T>(work: (s: KeyringSession) => Promise<T>, options: { keyring?: boolean; bus?: BusKind } = {}): Promise<T> {
  const session = await startKeyringSession(options);
  try {
    return await work(session);
  } finally {
    await session.close();
  }
}

/**
 * dbus-monitor on `address`, every message as it crossed the bus (pcap); resolves once it watches.
 * stop() sends a canary in plain, waits until the capture holds it, and ends the monitor.
 */
async function monitorBus(address: string): Promise<{ canary: string; stop(): Promise<Buffer> }> {
  const watcher = await DBusConnection.open(address, process.getuid?.() ?? 0, AbortSignal.timeout(10_000));
  // A monitor connects, says Hello, then leaves the bus's names as it becomes one: that second
  // NameOwnerChanged is the sign it sees everything from here on.
  let monitorName: string | undefined;
  let watching = (): void => undefined;
  const watches = new Promise<void>((resolve) => (watching = resolve));
  watcher.onSignal((m) => {
    if (m.member !== 'NameOwnerChanged') return;
    const [name, oldOwner, newOwner] = m.body as [string, string, string];
    if (monitorName === undefined && name.startsWith(':') && oldOwner === '' && newOwner === name) monitorName = name;
    else if (name === monitorName && newOwner === '') watching();
  });
  await watcher.call({ destination: 'org.freedesktop.DBus', path: '/org/freedesktop/DBus', interface: 'org.freedesktop.DBus', member: 'AddMatch', signature: 's', body: ["type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged'"] });
  const child = spawn('dbus-monitor', ['--address', address, '--pcap'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  await watches;
  const canary = `canary-${Date.now()}-sent-in-plain`;
  return {
    canary,
    async stop() {
      watcher.emit({ path: '/crawl/test', interface: 'crawl.Test', member: 'Canary', signature: 'ay', body: [Buffer.from(canary)] });
      await new Promise<void>((resolve) => {
        const check = (): void => (Buffer.concat(chunks).includes(canary) ? resolve() : void child.stdout.once('data', check));
        check();
      });
      child.kill();
      await exited;
      watcher.close();
      return Buffer.concat(chunks);
    },
  };
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

/** Calls `act` once the output shows `text` (looked at as it comes, not on a timer). */
function once(output: { stdout: () => string }, text: string, act: () => void): void {
  const check = (): void => {
    if (output.stdout().includes(text)) act();
    else setImmediate(check);
  };
  check();
}

/**
 * A key logged in on `s`, the keyring then locked with a prompter that never answers, and
 * `auth token` on a terminal with the unlock bound given; `act` runs once crawl says it waits.
 */
async function tokenWhileLocked(s: KeyringSession, name: string, bound: string, act?: (child: ChildProcess) => void): Promise<{ r: RunResult; key: string }> {
  const { dir, cleanup } = tempDir();
  try {
    const key = fx.sandbox.addKey(name).key;
    expect((await crawl(s, dir, ['auth', 'login', '--with-key'], { input: key })).code).toBe(0);
    await s.lock();
    await s.silentPrompter();
    const r = await crawl(s, dir, ['auth', 'token'], {
      tty: true,
      env: { CRAWL_KEYRING_TIMEOUT: bound },
      ...(act === undefined ? {} : { onSpawn: (child: ChildProcess, output: { stdout: () => string }) => once(output, `waiting up to ${bound} s`, () => act(child)) }),
    });
    return { r, key };
  } finally {
    cleanup();
  }
}

describeEachBus('on %s', { tools: ['secret-tool', 'script'] }, (bus) => {
  let session: KeyringSession;
  beforeAll(async () => {
    session = await startKeyringSession({ bus });
  });
  // A set-up that failed (a tool missing) left no session: its error is the only one.
  afterAll(() => session?.close());

  /** The file's session on this bus, handed back as it was found: unlocked. */
  async function shared<T>(work: (s: KeyringSession) => Promise<T>): Promise<T> {
    try {
      return await work(session);
    } finally {
      await session.unlock();
    }
  }

  /** A session of the test's own on this bus. */
  function own<T>(work: (s: KeyringSession) => Promise<T>, options: { keyring?: boolean } = {}): Promise<T> {
    return withSession(work, { ...options, bus });
  }

  describe('a key in the system keyring (GNOME Keyring, Secret Service)', () => {
    it('login -> status -> job -> logout: the key is in the keyring (secret-tool finds it), never in the config file', async () => {
      await shared(async (s) => {
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
      await shared(async (s) => {
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
      await shared(async (s) => {
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
      await shared(async (s) => {
        const { dir, cleanup } = tempDir();
        const key = fx.sandbox.addKey('synced').key;
        expect((await crawl(s, dir, ['auth', 'login', '--with-key'], { input: key })).code).toBe(0);
        // The same config on another machine: a keyring of its own, without that entry.
        await own(async (other) => {
          const r = await crawl(other, dir, ['job', 'status', 'demo-small']);
          expect(r.code).toBe(2);
          expect(r.stderr).toMatch(/^crawl: profile "default" keeps its key in the system keyring \(Secret Service\), which holds no key for it on this machine\nhint: log in here with `crawl auth login`, or set CRAWL_API_KEY\n$/);
        });
        cleanup();
      });
    });

    it('concurrent logins to one profile: the config and the keyring entry agree on one of the keys (the lock)', async () => {
      await own(async (s) => {
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
      await shared(async (s) => {
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

  describe('when the keyring cannot be used', () => {
    it('no Secret Service on the bus: login stores into the config file and says why; --store keyring is an error', async () => {
      await own(
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
      await shared(async (s) => {
        const { dir, cleanup } = tempDir();
        const key = fx.sandbox.addKey('locked').key;
        expect((await crawl(s, dir, ['auth', 'login', '--with-key'], { input: key })).code).toBe(0);
        await s.lock();
        const r = await crawl(s, dir, ['job', 'status', 'demo-small']);
        expect(r.code).toBe(1);
        expect(r.stderr).toBe(
          'crawl: the system keyring (Secret Service) is locked\n' +
            `hint: unlock it on the desktop, or from a shell (over SSH too) by restarting GNOME Keyring unlocked: \`${UNLOCK}\`; or set CRAWL_API_KEY for this shell; or keep the key in the config file instead: \`crawl auth login --insecure-storage\`\n`,
        );
        // Never a silent fall back to plaintext.
        expect(readFileSync(join(dir, 'config.json'), 'utf8')).not.toContain(key);
        // CRAWL_API_KEY is the way around it.
        const withEnv = await crawl(s, dir, ['job', 'status', 'demo-small'], { env: { CRAWL_API_KEY: key } });
        expect(withEnv.code, withEnv.stderr).toBe(0);
        cleanup();
      });
    });

    it('the unlock command of that hint, run as printed in a shell with no display, unlocks the running keyring', needs('systemd-ask-password'), async () => {
      await own(async (s) => {
        const { dir, cleanup } = tempDir();
        const key = fx.sandbox.addKey('unlocked-from-a-shell').key;
        expect((await crawl(s, dir, ['auth', 'login', '--with-key'], { input: key })).code).toBe(0);
        await s.lock();
        const locked = await crawl(s, dir, ['auth', 'token']);
        expect(locked.code).toBe(1);
        const command = /by restarting GNOME Keyring unlocked: `([^`]+)`/.exec(locked.stderr)?.[1];
        expect(command).toBe(UNLOCK);
        // A terminal (the password is typed, unechoed), the session's bus and nothing of a desktop.
        const typed = await spawnProcess('sh', ['-c', command ?? ''], {
          tty: true,
          env: s.env,
          timeoutMs: 30_000,
          onSpawn: (child, output) => once(output, 'GNOME Keyring password:', () => child.stdin?.write(`${KEYRING_PASSWORD}\r`)),
        });
        expect(typed.code, typed.stdout).toBe(0);
        // The command returns before the new daemon has taken the bus name and unlocked the
        // collection with what it read (the old daemon gone first): the next command comes once
        // it has, as it would for a person.
        await s.whenUnlocked();
        // The terminal is gone; the daemon that took over stays, unlocked.
        const r = await crawl(s, dir, ['auth', 'token']);
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).toBe(`${key}\n`);
        cleanup();
      });
    });

    it('the keyring daemon crashes while its unlock prompt waits: crawl ends at once, saying the keyring stopped (exit 1)', async () => {
      await own(async (s) => {
        // A bound far beyond the test's: only the daemon's end can end this wait.
        const { r, key } = await tokenWhileLocked(s, 'crash', '600', () => s.crashKeyring());
        expect(r.code, r.stdout).toBe(1);
        expect(r.stdout).toContain('crawl: the system keyring (Secret Service) stopped while crawl waited for it: the keyring service left the session bus\n');
        expect(r.stdout).not.toContain('nobody unlocked it');
        expect(r.stdout).not.toContain(key);
      });
    });

    it('a locked keyring on a terminal, whose unlock prompt nobody answers: the bounded wait ends in an error (exit 1)', async () => {
      await own(async (s) => {
        const { r, key } = await tokenWhileLocked(s, 'prompt', '1');
        expect(r.code).toBe(1);
        expect(r.stdout).toContain('the system keyring (Secret Service) is locked: unlock it in the dialog on your desktop (waiting up to 1 s; Ctrl-C stops)');
        expect(r.stdout).toContain('crawl: the system keyring (Secret Service) stayed locked: nobody unlocked it within 1 s');
        expect(r.stdout).not.toContain(key);
      });
    });

    it('Ctrl-C while waiting for an unlock ends the wait at once (exit 130)', async () => {
      await own(async (s) => {
        // Interrupted once crawl says it waits for the dialog: not before, not by a timer.
        const { r, key } = await tokenWhileLocked(s, 'interrupt', '600', (child) => child.kill('SIGINT'));
        expect(r.code).toBe(130);
        expect(r.stdout).not.toContain(key);
      });
    });
  });

  describe('nothing in clear on the bus', () => {
    it('dbus-monitor on the bus while a key is stored and read: the key round-trips, and the capture holds it in no encoding', needs('dbus-monitor'), async () => {
      await shared(async (s) => {
        const { dir, cleanup } = tempDir();
        const key = fx.sandbox.addKey('on-the-wire').key;
        const monitor = await monitorBus(s.address);
        const login = await crawl(s, dir, ['auth', 'login', '--with-key'], { input: key });
        expect(login.code, login.stderr).toBe(0);
        const token = await crawl(s, dir, ['auth', 'token']);
        expect(token.stdout).toBe(`${key}\n`);
        const capture = await monitor.stop();
        const text = capture.toString('latin1');
        // The capture is of this traffic: crawl's write and its read, and a plain secret the test
        // sends itself, which shows through.
        expect(text).toContain('CreateItem');
        expect(text).toContain('GetSecret');
        expect(text).toContain(monitor.canary);
        const bytes = Buffer.from(key, 'utf8');
        const forms = { raw: key, hex: bytes.toString('hex'), HEX: bytes.toString('hex').toUpperCase(), base64: bytes.toString('base64'), base64url: bytes.toString('base64url') };
        expect(Object.entries(forms).filter(([, form]) => text.includes(form)).map(([name]) => name)).toEqual([]);
        expect(findKey(text, key)).toBeUndefined();
        // Nor half of it: the key's head and tail.
        expect(text).not.toContain(key.slice(0, 12));
        expect(text).not.toContain(key.slice(-12));
        // The session crawl asked for.
        expect(text).toContain('dh-ietf1024-sha256-aes128-cbc-pkcs7');
        cleanup();
      });
    });
  });

  describe('a secret manager in place of the keyring', () => {
    it('config set key-command on a keyring profile: the entry is removed once the command is seen to print that key; another key is refused, nothing changed', async () => {
      await shared(async (s) => {
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

  it('a locked keyring on a terminal, whose unlock prompt nobody answers: auth login asks it before the key, and never shows its prompt', async () => {
    await withSession(async (s) => {
      const { dir, key, cleanup } = await loggedIn(s, 'prompt-login');
      await s.lock();
      await s.silentPrompter();
      const r = await crawl(s, dir, ['auth', 'login'], { tty: true, env: { CRAWL_KEYRING_TIMEOUT: '1' } });
      expect(r.code).toBe(1);
      expect(r.stdout).toContain('the system keyring (Secret Service) is locked: unlock it in the dialog on your desktop (waiting up to 1 s; Ctrl-C stops)');
      expect(r.stdout).toContain('crawl: the system keyring (Secret Service) stayed locked: nobody unlocked it within 1 s');
      expect(r.stdout).not.toContain(key);
      expect(r.stdout).not.toContain('Paste your API key');
      cleanup();
    });
  });
});

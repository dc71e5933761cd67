// Where a key is written (src/config/key-home.ts), where no keyring can be reached from this
// shell: a profile whose key is in the keyring or a secret manager never moves to the plaintext
// config file unless asked, and the error names the ways forward; a first login that named no
// store falls back to the file, as documented. In this process, with an environment that has no
// session bus, or one whose address names a socket that is not there.
import { createServer, type Server } from 'node:net';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { crawl, TEST_HOME } from '../support/harness.js';
import { calls } from '../support/keys.js';
import { settingsSuite } from '../support/settings.js';

const suite = settingsSuite();

/** A config folder whose profile "default" is `profile` (with the sandbox's base URL), and the file's text. */
function configWith(profile: Record<string, string>): { dir: string; file: string; text: string } {
  const { dir, file } = suite.folders.holding({ profiles: { default: { 'base-url': `${suite.fx.sandbox.url}/`, ...profile } } });
  return { dir, file, text: readFileSync(file, 'utf8') };
}

const ON_KEYRING = { 'key-store': 'keyring', 'keyring-service': 'crawl:http://127.0.0.1', 'keyring-account': 'default:0123456789ab' };
/** Where no keyring can be reached: no bus at all, or an address whose socket is not there. */
const NO_BUS = { DBUS_SESSION_BUS_ADDRESS: undefined, XDG_RUNTIME_DIR: undefined };
const goneBus = (): Record<string, string | undefined> => ({ DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(suite.folders.fresh(), 'gone', 'bus')}`, XDG_RUNTIME_DIR: undefined });

function envFor(dir: string, bus: Record<string, string | undefined>): Record<string, string | undefined> {
  return { CRAWL_BASE_URL: undefined, CRAWL_API_KEY: undefined, CRAWL_CONFIG_DIR: dir, ...bus };
}

/** A listening Unix socket at `<folder>/bus`: what systemd keeps for a desktop session. */
async function busSocketIn(folder: string): Promise<Server> {
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(join(folder, 'bus'), resolve));
  return server;
}

describe('a profile whose key is in the keyring, where the keyring cannot be reached (an SSH shell)', () => {
  for (const [how, bus] of [
    ['no session bus', () => NO_BUS],
    ['a bus address whose socket is not there', goneBus],
  ] as const) {
    it(`auth login, ${how}: exit 1 before the key is checked; the config file unchanged; the ways forward, none of them a plain login`, async () => {
      const key = suite.fx.sandbox.addKey('ssh').key;
      const { dir, file, text } = configWith(ON_KEYRING);
      const before = suite.fx.sandbox.requests.length;
      const r = await crawl(['auth', 'login', '--with-key'], { env: envFor(dir, bus()), input: key });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        /^crawl: the system keyring \(Secret Service\) cannot be reached here: .*; profile "default" keeps its key in the system keyring \(Secret Service\), and it moves to the plaintext config file only when asked\n/,
      );
      const hint = r.stderr.split('\n').find((line) => line.startsWith('hint: ')) ?? '';
      expect(hint).toBe('hint: set CRAWL_API_KEY for this shell; or keep the key in the config file instead (plaintext): `crawl auth login --insecure-storage`');
      // The store was asked before the key was read: the service never saw it.
      expect(calls(suite.fx.sandbox, before)).toEqual([]);
      expect(readFileSync(file, 'utf8')).toBe(text);
      expect(r.stdout + r.stderr).not.toContain(key);
    });
  }

  it("names the desktop's bus when its socket is there and is the user's; not when nothing is there", async () => {
    const key = suite.fx.sandbox.addKey('ssh-bus').key;
    const runtime = join(suite.folders.fresh(), 'run');
    const server = await busSocketIn(runtime);
    try {
      const { dir, file, text } = configWith(ON_KEYRING);
      const platform = { os: process.platform, home: TEST_HOME, uid: process.getuid?.(), runtimeDir: runtime };
      const r = await crawl(['auth', 'login', '--with-key'], { env: envFor(dir, NO_BUS), input: key, platform });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`hint: reach the desktop session's bus from this shell: \`export DBUS_SESSION_BUS_ADDRESS=unix:path=${runtime}/bus\`; or set CRAWL_API_KEY for this shell; or `);
      expect(readFileSync(file, 'utf8')).toBe(text);
      // Another user's socket, or none: not named.
      const otherUser = await crawl(['auth', 'login', '--with-key'], { env: envFor(dir, NO_BUS), input: key, platform: { ...platform, uid: (platform.uid ?? 0) + 1 } });
      expect(otherUser.stderr).not.toContain('export DBUS_SESSION_BUS_ADDRESS');
      const none = await crawl(['auth', 'login', '--with-key'], { env: envFor(dir, NO_BUS), input: key, platform: { ...platform, runtimeDir: join(runtime, 'nothing') } });
      expect(none.code).toBe(1);
      expect(none.stderr).not.toContain('export DBUS_SESSION_BUS_ADDRESS');
    } finally {
      server.close();
    }
  });

  it('a read says the same ways forward (never "log in on this machine")', async () => {
    const { dir } = configWith(ON_KEYRING);
    const r = await crawl(['job', 'status', 'demo-small'], { env: envFor(dir, NO_BUS) });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^crawl: the system keyring \(Secret Service\) cannot be reached here: no session bus.*; profile "default" keeps its key there\nhint: set CRAWL_API_KEY for this shell; or keep the key in the config file instead \(plaintext\): `crawl auth login --insecure-storage`\n$/);
  });

  it('auth login --insecure-storage (or --store file) moves it, as asked, and says the old entry could not be removed from here', async () => {
    for (const flags of [['--insecure-storage'], ['--store', 'file']]) {
      const key = suite.fx.sandbox.addKey('asked').key;
      const { dir } = configWith(ON_KEYRING);
      const r = await crawl(['auth', 'login', '--with-key', ...flags], { env: envFor(dir, NO_BUS), input: key });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/crawl: warning: the old key's entry in the system keyring \(Secret Service\) \(crawl:http:\/\/127\.0\.0\.1, default:0123456789ab\) could not be removed: no system keyring is available/);
      const profile = (JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { profiles: { default: Record<string, string> } }).profiles.default;
      expect(profile).toEqual({ 'base-url': `${suite.fx.sandbox.url}/`, 'api-key': key });
    }
  });

  it('keys create --save: the key is made, not saved in plaintext; printed, and the error says why', async () => {
    const { dir, file, text } = configWith({ ...ON_KEYRING });
    const r = await crawl(['keys', 'create', 'saved', '--save'], { env: { ...envFor(dir, NO_BUS), CRAWL_API_KEY: suite.fx.sandbox.key } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('profile "default" keeps its key in the system keyring (Secret Service), and it moves to the plaintext config file only when asked');
    expect(r.stdout).toMatch(/^crk_\w+\n$/);
    expect(readFileSync(file, 'utf8')).toBe(text);
  });
});

describe('a profile whose key a secret manager keeps (key-command)', () => {
  it('auth login where no keyring can be reached: exit 1, the profile left on its commands', async () => {
    const key = suite.fx.sandbox.addKey('cmd').key;
    const { dir, file, text } = configWith({ 'key-store': 'command', 'key-command': 'cat /nonexistent' });
    const r = await crawl(['auth', 'login', '--with-key'], { env: envFor(dir, NO_BUS), input: key });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('profile "default" keeps its key in a secret manager (key-command), and it moves to the plaintext config file only when asked');
    expect(readFileSync(file, 'utf8')).toBe(text);
  });
});

describe('where the file store is the documented fall back', () => {
  it('a first login (no store yet) that named none, with no keyring here at all: the config file, said', async () => {
    const key = suite.fx.sandbox.addKey('first').key;
    const { dir } = configWith({});
    const r = await crawl(['auth', 'login', '--with-key'], { env: envFor(dir, NO_BUS), input: key });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`crawl: no system keyring is available (no session bus (DBUS_SESSION_BUS_ADDRESS is not set)): the key is stored in plaintext in ${join(dir, 'config.json')} (mode 0600)`);
  });

  it('a plaintext profile logging in again with no keyring: stays in the file (no move at all)', async () => {
    const key = suite.fx.sandbox.addKey('again').key;
    const { dir } = configWith({ 'api-key': 'crk_' + 'p'.repeat(40) });
    const r = await crawl(['auth', 'login', '--with-key'], { env: envFor(dir, goneBus()), input: key });
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { profiles: { default: Record<string, string> } }).profiles.default['api-key']).toBe(key);
  });

  it('--store keyring named: an error with the ways forward, nothing written', async () => {
    const key = suite.fx.sandbox.addKey('named').key;
    const { dir, file, text } = configWith({});
    const r = await crawl(['auth', 'login', '--with-key', '--store', 'keyring'], { env: envFor(dir, NO_BUS), input: key });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^crawl: no system keyring is available: no session bus .*\nhint: set CRAWL_API_KEY for this shell; or keep the key in the config file instead/);
    expect(readFileSync(file, 'utf8')).toBe(text);
  });
});

describe('auth login asks the store before it asks for the key', () => {
  it('on a terminal, a keyring profile where the keyring cannot be reached: the error, and the prompt never shown', async () => {
    const { dir, file, text } = configWith(ON_KEYRING);
    for (const args of [['auth', 'login'], ['auth', 'login', '--with-key']]) {
      const r = await crawl(args, { env: envFor(dir, NO_BUS), tty: true });
      expect(r.code).toBe(1);
      expect(r.output).toContain('crawl: the system keyring (Secret Service) cannot be reached here');
      expect(r.output).not.toContain('Paste your API key');
      expect(r.output).not.toContain('Reading the key');
    }
    expect(readFileSync(file, 'utf8')).toBe(text);
  });
});

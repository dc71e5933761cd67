// `auth login` says whether the service accepted the key it saved; `--no-verify` saves without
// asking, and says so. A key is always saved with the base URL it was checked against (or made
// at, for `keys create --save`): a profile whose base URL was another one gets the new one too,
// and the change is said. And how it gets the key: --with-key from stdin, a hidden prompt on a
// terminal, Ctrl-C there, no prompt without a terminal; a plain-http base URL refused first.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { maskKey } from '../../../src/text/mask.js';
import { crawl, runCli, waitFor } from '../../support/harness.js';
import { refusedUrl } from '../../support/hostile-server.js';
import { calls } from '../../support/keys.js';
import { sandboxFixture, withOwnSandbox, type SandboxFixture } from '../../support/sandbox.js';
import { brokenKey, expectNoBrokenKeyIn } from '../../support/key-forms.js';
import { authStatus, BAD_KEY, envOf, settingsSuite } from '../../support/settings.js';

let fx: SandboxFixture;
let n = 0;
// A sandbox for each test. The concurrent tests below (their own suite's sandbox) start theirs at
// once too: every one started is closed, not only the last `fx`.
const started: SandboxFixture[] = [];
beforeEach(async () => {
  fx = await sandboxFixture({ seed: false });
  started.push(fx);
});
afterEach(async () => {
  await Promise.all(started.splice(0).map((one) => one.close()));
});

type Profiles = Record<string, Record<string, string>>;
/** A fresh config folder, optionally holding `profiles`. */
function configDir(profiles?: Profiles): string {
  const dir = join(fx.configDir, `cfg-${n++}`);
  mkdirSync(dir, { mode: 0o700 });
  if (profiles) writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles }), { mode: 0o600 });
  return dir;
}
const readProfiles = (dir: string): Profiles => (JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { profiles: Profiles }).profiles;
const env = (dir: string, extra: Record<string, string | undefined> = {}) => ({ ...fx.env, CRAWL_API_KEY: undefined, CRAWL_CONFIG_DIR: dir, ...extra });

describe('auth login says whether the service accepted the key', () => {
  it('accepted: said on stderr, and in --json as verified/accepted', async () => {
    const key = fx.sandbox.addKey('login').key;
    const plain = await runCli(['auth', 'login', '--with-key'], { env: env(configDir()), input: key });
    expect(plain.code).toBe(0);
    // No session bus in this process: the key goes to the config file, which is said first.
    expect(plain.stderr).toMatch(/^crawl: no system keyring is available \(no session bus.*\): the key is stored in plaintext in .+config\.json \(mode 0600\)\n/);
    expect(plain.stderr).toContain(`\nLogged in to ${fx.sandbox.url}/ (profile "default", key ${maskKey(key)}): the service accepts the key\nThe key is stored in the config file, plaintext: `);
    const jsonDir = configDir();
    const json = await runCli(['auth', 'login', '--with-key', '--json'], { env: env(jsonDir), input: key });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      profile: 'default',
      baseUrl: `${fx.sandbox.url}/`,
      apiKey: maskKey(key),
      saved: true,
      keyStore: 'file',
      keyLocation: `config file, plaintext: ${join(jsonDir, 'config.json')}`,
      verified: true,
      accepted: true,
      baseUrlChangedFrom: null,
    });
  });

  it('--no-verify: no request at all, the key saved, and it says the service was not asked', async () => {
    for (const key of [fx.sandbox.addKey('offline').key, 'crk_' + 'n'.repeat(40)]) {
      const dir = configDir();
      const before = fx.sandbox.requests.length;
      const r = await runCli(['auth', 'login', '--with-key', '--no-verify'], { env: env(dir), input: key + '\n' });
      expect(r.code).toBe(0);
      expect(r.stderr).toContain(
        `\nSaved the key for ${fx.sandbox.url}/ (profile "default", key ${maskKey(key)}) without checking it (--no-verify): whether the service accepts it is not known\n`,
      );
      expect(calls(fx.sandbox, before)).toEqual([]);
      expect(readProfiles(dir).default).toEqual({ 'api-key': key, 'base-url': `${fx.sandbox.url}/` });
    }
    // Even with nothing listening at the base URL.
    const dir = configDir();
    const offline = await runCli(['auth', 'login', '--with-key', '--no-verify', '--json'], { env: env(dir, { CRAWL_BASE_URL: await refusedUrl() }), input: 'crk_' + 'o'.repeat(40) });
    expect(offline.code).toBe(0);
    expect(JSON.parse(offline.stdout)).toMatchObject({ saved: true, verified: false, accepted: null });
  });

  it('a key no Authorization header can carry is refused before any request (exit 2), nothing saved', async () => {
    for (const key of ['crk_abc\u001b[31mdef', 'crk_abc\u200bdef', 'crk_abcédef', 'crk_abc\u202edef']) {
      const dir = configDir();
      const before = fx.sandbox.requests.length;
      const r = await runCli(['auth', 'login', '--with-key'], { env: env(dir), input: key });
      expect(r.code, JSON.stringify(key)).toBe(2);
      expect(r.stderr).toMatch(/^crawl: the API key contains .*; refusing to send it, and nothing was saved\n/);
      expect(r.stderr).not.toContain('abc');
      expect(calls(fx.sandbox, before)).toEqual([]);
      expect(existsSync(join(dir, 'config.json'))).toBe(false);
    }
  });
});

describe('the key is saved with the base URL it was checked against', () => {
  const OTHER = 'https://crawl.other.example/';

  for (const [how, extra, flags] of [
    ['CRAWL_BASE_URL', (url: string) => ({ CRAWL_BASE_URL: url }), []],
    ['--base-url', () => ({ CRAWL_BASE_URL: undefined }), (url: string) => ['--base-url', url]],
  ] as const) {
    it(`auth login with ${how} B and a profile holding A: saves B with the key, and says "base URL changed from A to B"`, async () => {
      const key = fx.sandbox.addKey('b').key;
      const dir = configDir({ default: { 'base-url': OTHER, 'api-key': 'crk_' + 'a'.repeat(40) } });
      const r = await runCli(['auth', 'login', '--with-key', ...(typeof flags === 'function' ? flags(fx.sandbox.url) : flags)], { env: env(dir, extra(fx.sandbox.url)), input: key });
      expect(r.code).toBe(0);
      expect(r.stderr).toContain(`note: base URL changed from ${OTHER} to ${fx.sandbox.url}/: the key belongs to that service\n`);
      expect(readProfiles(dir).default).toEqual({ 'base-url': `${fx.sandbox.url}/`, 'api-key': key });
      const json = await runCli(['auth', 'login', '--with-key', '--json'], {
        env: env(configDir({ default: { 'base-url': OTHER } }), { CRAWL_BASE_URL: fx.sandbox.url }),
        input: key,
      });
      expect(JSON.parse(json.stdout).baseUrlChangedFrom).toBe(OTHER);
    });
  }

  it('the same base URL written differently is no change, and nothing is said', async () => {
    const key = fx.sandbox.addKey('same').key;
    const dir = configDir({ default: { 'base-url': fx.sandbox.url } });
    const r = await runCli(['auth', 'login', '--with-key'], { env: env(dir, { CRAWL_BASE_URL: `${fx.sandbox.url}/` }), input: key });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(/base URL changed/);
    expect(readProfiles(dir).default).toEqual({ 'base-url': fx.sandbox.url, 'api-key': key });
  });

  it('the base URL from the profile itself: kept as it was written', async () => {
    const key = fx.sandbox.addKey('own').key;
    const dir = configDir({ default: { 'base-url': fx.sandbox.url } });
    const r = await runCli(['auth', 'login', '--with-key'], { env: env(dir, { CRAWL_BASE_URL: undefined }), input: key });
    expect(r.code).toBe(0);
    expect(readProfiles(dir).default).toEqual({ 'base-url': fx.sandbox.url, 'api-key': key });
  });

  it('keys create --save with CRAWL_BASE_URL B and a profile holding A: the same rule', async () => {
    const dir = configDir({ default: { 'base-url': OTHER, 'api-key': 'crk_' + 'a'.repeat(40) } });
    const r = await runCli(['keys', 'create', 'saved', '--save'], { env: { ...env(dir), CRAWL_API_KEY: fx.sandbox.key } });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`note: base URL changed from ${OTHER} to ${fx.sandbox.url}/: the key belongs to that service\n`);
    // With --save the key has a home, so it is not printed: the profile (a plaintext one) holds the new key.
    expect(r.stdout).toBe('');
    const saved = readProfiles(dir).default;
    expect(saved).toEqual({ 'base-url': `${fx.sandbox.url}/`, 'api-key': expect.stringMatching(/^crk_/) });
    expect(saved?.['api-key']).not.toBe('crk_' + 'a'.repeat(40));
  });
});

describe('reading the key', () => {

  const suite = settingsSuite();
  const folders = suite.folders;

  describe('auth login', () => {
    it.concurrent('a plain http:// base URL to another host is refused before the key is asked for (exit 2)', async ({ expect }) => {
      const dir = folders.fresh();
      // In a terminal the prompt would wait for the key; the refusal comes first, and at once.
      const r = await runCli(['auth', 'login'], { env: envOf({ CRAWL_CONFIG_DIR: dir, CRAWL_BASE_URL: 'http://crawl.example' }), tty: true, timeoutMs: 5_000 });
      expect(r.timedOut).toBe(false);
      expect(r.code).toBe(2);
      expect(r.stdout).not.toContain('Paste your API key');
      expect(r.stdout).toMatch(/^crawl: refusing to send the API key over plain http:\/\/ to crawl\.example\n/);
      expect(existsSync(join(dir, 'config.json'))).toBe(false);
    });

    it.concurrent('--with-key: a key the service rejects exits 4 and nothing is saved', async ({ expect }) => {
      const dir = folders.fresh();
      const r = await runCli(['auth', 'login', '--with-key', '--verbose'], { env: envOf({ CRAWL_CONFIG_DIR: dir, CRAWL_BASE_URL: suite.fx.sandbox.url }), input: BAD_KEY + '\n' });
      expect(r.code).toBe(4);
      expect(r.stderr).toContain(`* Authorization: Bearer ${maskKey(BAD_KEY)}\n`);
      expect(r.stderr).toMatch(/\ncrawl: the service rejected the key \(HTTP 401\); nothing was saved\n/);
      expect(r.stderr).not.toContain(BAD_KEY);
      expect(existsSync(join(dir, 'config.json'))).toBe(false);
    });

    it.concurrent('--with-key: a good key read from stdin is checked, then saved with the base URL (0600)', async ({ expect }) => {
      const dir = folders.fresh();
      const key = suite.fx.sandbox.addKey('login').key;
      const r = await runCli(['auth', 'login', '--with-key'], { env: envOf({ CRAWL_CONFIG_DIR: dir, CRAWL_BASE_URL: suite.fx.sandbox.url }), input: `  ${key}\n` });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('');
      // This process has no session bus: no keyring can be reached, so the key goes to the file, and that is said.
      const file = join(dir, 'config.json');
      expect(r.stderr).toBe(
        `crawl: no system keyring is available (no session bus (DBUS_SESSION_BUS_ADDRESS is not set)): the key is stored in plaintext in ${file} (mode 0600)\n` +
          `Logged in to ${suite.fx.sandbox.url}/ (profile "default", key ${maskKey(key)}): the service accepts the key\n` +
          `The key is stored in the config file, plaintext: ${file}\n`,
      );
      expect(folders.read(dir)).toEqual({ profiles: { default: { 'api-key': key, 'base-url': suite.fx.sandbox.url + '/' } } });
      expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
      // The check happened against the service with that very key.
      expect(suite.fx.sandbox.requests.some((q) => q.url === '/api/keys' && q.authorized)).toBe(true);

      const status = await authStatus([], envOf({ CRAWL_CONFIG_DIR: dir }));
      expect(status.code).toBe(0);
      expect(status.json).toMatchObject({ apiKeySource: 'config', baseUrlSource: 'config', accepted: true });
    });

    it('on a terminal: a hidden prompt, the key never echoed', async () => {
      const dir = folders.fresh();
      const key = suite.fx.sandbox.addKey('typed').key;
      const r = await runCli(['auth', 'login'], {
        env: envOf({ CRAWL_CONFIG_DIR: dir, CRAWL_BASE_URL: suite.fx.sandbox.url }),
        tty: true,
        // Typed once the prompt is up, as a person would: the terminal echoes nothing by then.
        onSpawn: (child, out) => {
          void waitFor(() => out.stdout().includes('Paste your API key'), 10_000, 'the prompt').then(() => child.stdin?.write(key + '\r'));
        },
      });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('? Paste your API key:');
      expect(r.stdout).toContain(`Logged in to ${suite.fx.sandbox.url}/`);
      expect(r.stdout).not.toContain(key);
      expect(folders.read(dir).profiles.default?.['api-key']).toBe(key);
    });

    it('Ctrl-C at the prompt: exit 130, nothing saved', async () => {
      const dir = folders.fresh();
      const r = await runCli(['auth', 'login'], {
        env: envOf({ CRAWL_CONFIG_DIR: dir, CRAWL_BASE_URL: suite.fx.sandbox.url }),
        tty: true,
        onSpawn: (child, out) => {
          void waitFor(() => out.stdout().includes('Paste your API key'), 10_000, 'the prompt').then(() => child.stdin?.write('crk_half\u0003'));
        },
      });
      expect(r.code).toBe(130);
      expect(r.stdout).not.toContain('crk_half');
      expect(existsSync(join(dir, 'config.json'))).toBe(false);
    });

    it.concurrent('without a terminal or --with-key it cannot prompt: exit 2 naming --with-key', async ({ expect }) => {
      const env = envOf({ CRAWL_CONFIG_DIR: folders.fresh(), CRAWL_BASE_URL: suite.fx.sandbox.url });
      const [noInput, piped] = await Promise.all([
        runCli(['auth', 'login', '--no-input'], { env }),
        runCli(['auth', 'login'], { env, input: suite.fx.sandbox.key + '\n' }),
      ]);
      for (const r of [noInput, piped]) {
        expect(r.code).toBe(2);
        expect(r.stderr).toContain('crawl auth login --with-key');
      }
    });

    it.concurrent('--no-input on a terminal does not prompt either', async ({ expect }) => {
      const r = await runCli(['auth', 'login', '--no-input'], {
        env: envOf({ CRAWL_CONFIG_DIR: folders.fresh(), CRAWL_BASE_URL: suite.fx.sandbox.url }),
        tty: true,
      });
      expect(r.code).toBe(2);
      expect(r.stdout).not.toContain('Paste your API key');
    });
  });

  describe('a key that cannot be sent', () => {
    it.concurrent.for([
      ['ESC', '\u001b'],
      ['DEL', '\u007f'],
      ['NEL', '\u0085'],
      ['a zero-width space', '\u200b'],
    ] as Array<[string, string]>)('auth login --with-key, a key holding %s: exit 2, no request, nothing saved', async ([, inside], { expect }) => {
      await withOwnSandbox(async (own) => {
        const dir = join(folders.fresh(), 'crawl');
        const r = await runCli(['auth', 'login', '--with-key'], { env: envOf({ CRAWL_CONFIG_DIR: dir, CRAWL_BASE_URL: own.sandbox.url }), input: brokenKey(inside) + '\n' });
        expect(r.code).toBe(2);
        expect(r.stdout).toBe('');
        expect(r.stderr).toMatch(/^crawl: the API key contains .*; refusing to send it, and nothing was saved\n/);
        expectNoBrokenKeyIn(r.stderr);
        expect(own.sandbox.requests).toEqual([]);
        expect(existsSync(join(dir, 'config.json'))).toBe(false);
      });
    });
  });

  describe('`auth login --with-key` on a terminal says it reads standard input', () => {
    it('on a terminal: the notice; in a pipe: none', async () => {
      const env = { ...fx.env, CRAWL_API_KEY: undefined, CRAWL_CONFIG_DIR: configDir() };
      // A terminal's input ends only when the user says so: the notice is what shows meanwhile.
      const typed = await runCli(['auth', 'login', '--with-key'], {
        env,
        tty: true,
        onSpawn: (child, out) => void waitFor(() => out.stdout().includes('Reading the key'), 10_000, 'the notice').then(() => child.kill('SIGINT')),
      });
      expect(typed.code).toBe(130);
      expect(typed.stdout).toBe('Reading the key from standard input: paste it, press Enter, then Ctrl-D. It shows as you type; `crawl auth login` alone asks for it without showing it.\n\n');
      const piped = await crawl(['auth', 'login', '--with-key'], { env: { ...env, CRAWL_CONFIG_DIR: configDir() }, input: fx.sandbox.key });
      expect(piped.code).toBe(0);
      expect(piped.stderr).not.toContain('Reading the key');
    });
  });
});

// Where settings come from (flag > env > config profile > default), the config file and its
// commands, and the auth commands, driven through the built CLI against a sandbox.
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maskKey } from '../../src/text/mask.js';
import { runCli, tempDir, waitFor } from '../support/cli.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';

let fx: SandboxFixture;
let deadBase: string;
const dirs: Array<() => void> = [];

beforeAll(async () => {
  fx = await sandboxFixture();
  // A port nobody listens on: a base URL that is used would fail with exit 5.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  deadBase = `http://127.0.0.1:${port}/`;
});
afterAll(async () => {
  for (const cleanup of dirs) cleanup();
  await fx.close();
});

const BAD_KEY = 'crk_' + 'x'.repeat(40);

function freshDir(): string {
  const { dir, cleanup } = tempDir('crawl-settings-');
  dirs.push(cleanup);
  return dir;
}

type Profiles = Record<string, { 'base-url'?: string; 'api-key'?: string }>;

function configWith(profiles: Profiles): string {
  const dir = freshDir();
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles }), { mode: 0o600 });
  return dir;
}

function readConfig(dir: string): { profiles: Profiles } {
  return JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
}

/** Only what a test names: no CRAWL_* from the fixture unless given. */
function envOf(vars: Record<string, string | undefined>): Record<string, string | undefined> {
  return { CRAWL_BASE_URL: undefined, CRAWL_API_KEY: undefined, CRAWL_PROFILE: undefined, XDG_CONFIG_HOME: undefined, ...vars };
}

async function authStatus(args: string[], env: Record<string, string | undefined>) {
  const r = await runCli(['auth', 'status', '--json', ...args], { env });
  return { ...r, json: r.stdout ? JSON.parse(r.stdout) : undefined };
}

async function revokedKey(): Promise<string> {
  const created = fx.sandbox.addKey('to-revoke');
  const res = await fetch(`${fx.sandbox.url}/api/keys/${created.id}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${fx.sandbox.key}` },
  });
  expect(res.status).toBe(200);
  return created.key;
}

describe('precedence: flag > environment > config profile > default', () => {
  it.concurrent('the config file answers when nothing else does', async ({ expect }) => {
    const dir = configWith({ default: { 'base-url': fx.sandbox.url, 'api-key': fx.sandbox.key } });
    const r = await authStatus([], envOf({ CRAWL_CONFIG_DIR: dir }));
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({
      profile: 'default',
      baseUrl: fx.sandbox.url + '/',
      baseUrlSource: 'config',
      apiKey: maskKey(fx.sandbox.key),
      apiKeySource: 'config',
      accepted: true,
    });
  });

  it.concurrent('the environment beats the config file, for base URL and key', async ({ expect }) => {
    const dir = configWith({ default: { 'base-url': deadBase, 'api-key': BAD_KEY } });
    const r = await authStatus([], envOf({ CRAWL_CONFIG_DIR: dir, CRAWL_BASE_URL: fx.sandbox.url, CRAWL_API_KEY: fx.sandbox.key }));
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ baseUrlSource: 'env', apiKeySource: 'env', accepted: true });
  });

  it.concurrent('the --base-url flag beats the environment', async ({ expect }) => {
    const dir = freshDir();
    const r = await authStatus(['--base-url', fx.sandbox.url], envOf({ CRAWL_CONFIG_DIR: dir, CRAWL_BASE_URL: deadBase, CRAWL_API_KEY: fx.sandbox.key }));
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ baseUrl: fx.sandbox.url + '/', baseUrlSource: 'flag', accepted: true });
  });

  it.concurrent('a job command uses the same precedence (a dead config base URL is not used)', async ({ expect }) => {
    const dir = configWith({ default: { 'base-url': deadBase, 'api-key': BAD_KEY } });
    const r = await runCli(['job', 'demo-small'], { env: envOf({ CRAWL_CONFIG_DIR: dir, CRAWL_BASE_URL: fx.sandbox.url, CRAWL_API_KEY: fx.sandbox.key }) });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('id\tdemo-small\n');
  });

  it.concurrent('no base URL anywhere: exit 2 naming the fix', async ({ expect }) => {
    const r = await runCli(['job', 'demo-small'], { env: envOf({ CRAWL_CONFIG_DIR: freshDir(), CRAWL_API_KEY: fx.sandbox.key }) });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'crawl: no base URL configured\nhint: run `crawl config set base-url <url>`, set CRAWL_BASE_URL, or pass --base-url\n',
    );
  });

  it.concurrent('no key anywhere: exit 2 naming the fix, and nothing is sent', async ({ expect }) => {
    const r = await runCli(['job', 'keyless'], { env: envOf({ CRAWL_CONFIG_DIR: freshDir(), CRAWL_BASE_URL: fx.sandbox.url }) });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('crawl: no API key configured\nhint: run `crawl auth login` or set CRAWL_API_KEY\n');
    expect(fx.sandbox.requests.filter((q) => q.url.includes('keyless'))).toEqual([]);
  });

  it.concurrent('a key is never taken as a flag', async ({ expect }) => {
    const r = await runCli(['job', 'demo-small', '--api-key', fx.sandbox.key], { env: envOf({ CRAWL_CONFIG_DIR: freshDir(), CRAWL_BASE_URL: fx.sandbox.url }) });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^crawl: unknown option '--api-key'/);
    expect(r.stderr).not.toContain(fx.sandbox.key);
  });
});

describe('profiles: --profile > CRAWL_PROFILE > "default"', () => {
  let dir: string;
  let workKey: string;
  beforeAll(() => {
    workKey = fx.sandbox.addKey('work').key;
    dir = configWith({
      default: { 'base-url': fx.sandbox.url, 'api-key': BAD_KEY },
      work: { 'base-url': fx.sandbox.url, 'api-key': workKey },
    });
  });

  it.concurrent('CRAWL_PROFILE selects the profile', async ({ expect }) => {
    const r = await authStatus([], envOf({ CRAWL_CONFIG_DIR: dir, CRAWL_PROFILE: 'work' }));
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ profile: 'work', apiKey: maskKey(workKey), accepted: true });
  });

  it.concurrent('--profile beats CRAWL_PROFILE', async ({ expect }) => {
    const r = await authStatus(['--profile', 'default'], envOf({ CRAWL_CONFIG_DIR: dir, CRAWL_PROFILE: 'work' }));
    expect(r.code).toBe(4);
    expect(r.json).toMatchObject({ profile: 'default', apiKey: maskKey(BAD_KEY), accepted: false, httpStatus: 401 });
  });

  it.concurrent('without either, the "default" profile', async ({ expect }) => {
    const r = await runCli(['config', 'list'], { env: envOf({ CRAWL_CONFIG_DIR: dir }) });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`base-url\t${fx.sandbox.url}\napi-key\t${maskKey(BAD_KEY)}\n`);
  });

  it.concurrent('a profile name that could escape the file is refused', async ({ expect }) => {
    const r = await runCli(['config', 'list', '--profile', '../x'], { env: envOf({ CRAWL_CONFIG_DIR: dir }) });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^crawl: invalid profile name "\.\.\/x"/);
  });
});

describe('the config folder', () => {
  it.concurrent('CRAWL_CONFIG_DIR, else $XDG_CONFIG_HOME/crawl, else ~/.config/crawl', async ({ expect }) => {
    const home = freshDir();
    const xdg = freshDir();
    const own = freshDir();
    const [a, b, c] = await Promise.all([
      runCli(['config', 'path'], { env: envOf({ HOME: home, XDG_CONFIG_HOME: xdg, CRAWL_CONFIG_DIR: own }) }),
      runCli(['config', 'path'], { env: envOf({ HOME: home, XDG_CONFIG_HOME: xdg, CRAWL_CONFIG_DIR: undefined }) }),
      runCli(['config', 'path'], { env: envOf({ HOME: home, CRAWL_CONFIG_DIR: undefined }) }),
    ]);
    expect(a.stdout).toBe(join(own, 'config.json') + '\n');
    expect(b.stdout).toBe(join(xdg, 'crawl', 'config.json') + '\n');
    expect(c.stdout).toBe(join(home, '.config', 'crawl', 'config.json') + '\n');
  });

  it.concurrent('the XDG folder is where settings are actually written and read', async ({ expect }) => {
    const xdg = freshDir();
    const env = envOf({ HOME: freshDir(), XDG_CONFIG_HOME: xdg, CRAWL_CONFIG_DIR: undefined });
    const set = await runCli(['config', 'set', 'base-url', 'https://crawl.example.com'], { env });
    expect(set.code).toBe(0);
    expect(readConfig(join(xdg, 'crawl')).profiles.default?.['base-url']).toBe('https://crawl.example.com');
    const get = await runCli(['config', 'get', 'base-url'], { env });
    expect(get.stdout).toBe('https://crawl.example.com\n');
  });
});

describe('config get|set|unset|list|path', () => {
  it.concurrent('set writes config.json with mode 0600 in a private folder, as valid JSON', async ({ expect }) => {
    const dir = join(freshDir(), 'nested', 'crawl');
    const r = await runCli(['config', 'set', 'base-url', 'https://crawl.example.com/v1'], { env: envOf({ CRAWL_CONFIG_DIR: dir }) });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('Set base-url of profile "default" to https://crawl.example.com/v1\n');
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o077).toBe(0);
    expect(readConfig(dir)).toEqual({ profiles: { default: { 'base-url': 'https://crawl.example.com/v1' } } });
  });

  it.concurrent('set replaces the file atomically (a new file renamed over it), keeping other profiles', async ({ expect }) => {
    const dir = configWith({ other: { 'base-url': 'https://other.example/', 'api-key': BAD_KEY } });
    // A file left readable by others (edited by hand) comes back private.
    chmodSync(join(dir, 'config.json'), 0o644);
    const before = statSync(join(dir, 'config.json')).ino;
    const r = await runCli(['config', 'set', 'base-url', 'https://work.example', '--profile', 'work'], { env: envOf({ CRAWL_CONFIG_DIR: dir }) });
    expect(r.code).toBe(0);
    expect(statSync(join(dir, 'config.json')).ino).not.toBe(before);
    expect(readdirSync(dir)).toEqual(['config.json']);
    expect(readConfig(dir).profiles).toEqual({
      other: { 'base-url': 'https://other.example/', 'api-key': BAD_KEY },
      work: { 'base-url': 'https://work.example' },
    });
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
  });

  it.concurrent('get and list mask the key; get of an unset setting exits 1 with a hint', async ({ expect }) => {
    const dir = configWith({ default: { 'base-url': 'https://a.example/', 'api-key': fx.sandbox.key }, empty: {} });
    const env = envOf({ CRAWL_CONFIG_DIR: dir });
    const [get, list, listJson, missing] = await Promise.all([
      runCli(['config', 'get', 'api-key'], { env }),
      runCli(['config', 'list'], { env }),
      runCli(['config', 'list', '--json'], { env }),
      runCli(['config', 'get', 'base-url', '--profile', 'empty'], { env }),
    ]);
    expect(get.stdout).toBe(maskKey(fx.sandbox.key) + '\n');
    expect(list.stdout).toBe(`base-url\thttps://a.example/\napi-key\t${maskKey(fx.sandbox.key)}\n`);
    expect(JSON.parse(listJson.stdout)).toEqual({ profile: 'default', 'base-url': 'https://a.example/', 'api-key': maskKey(fx.sandbox.key) });
    for (const r of [get, list, listJson]) {
      expect(r.code).toBe(0);
      expect(r.stdout + r.stderr).not.toContain(fx.sandbox.key);
    }
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('crawl: base-url is not set in profile "empty"\nhint: run `crawl --profile empty config set base-url <value>`\n');
  });

  it.concurrent('set api-key is refused (exit 2) and the file is untouched', async ({ expect }) => {
    const dir = configWith({ default: { 'base-url': 'https://a.example/' } });
    const before = readFileSync(join(dir, 'config.json'), 'utf8');
    const r = await runCli(['config', 'set', 'api-key', 'crk_on_the_command_line'], { env: envOf({ CRAWL_CONFIG_DIR: dir }) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('crawl auth login --with-key');
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(before);
  });

  it.concurrent('set refuses what is not a base URL, and unknown settings (exit 2)', async ({ expect }) => {
    const env = envOf({ CRAWL_CONFIG_DIR: freshDir() });
    const [notUrl, unknown] = await Promise.all([
      runCli(['config', 'set', 'base-url', 'crawl.example.com'], { env }),
      runCli(['config', 'get', 'colour'], { env }),
    ]);
    expect(notUrl.code).toBe(2);
    expect(notUrl.stderr).toMatch(/^crawl: invalid base URL "crawl\.example\.com"/);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^crawl: unknown config key "colour"\nhint: known keys: base-url, api-key\n$/);
  });

  it.concurrent('unset removes one setting and says so when there was none', async ({ expect }) => {
    const dir = configWith({ default: { 'base-url': 'https://a.example/', 'api-key': BAD_KEY } });
    const env = envOf({ CRAWL_CONFIG_DIR: dir });
    const first = await runCli(['config', 'unset', 'api-key'], { env });
    expect(first.code).toBe(0);
    expect(readConfig(dir).profiles).toEqual({ default: { 'base-url': 'https://a.example/' } });
    const again = await runCli(['config', 'unset', 'api-key'], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toBe('api-key was not set in profile "default"\n');
  });

  it.concurrent('a config file that is not JSON is reported, never overwritten', async ({ expect }) => {
    const dir = freshDir();
    writeFileSync(join(dir, 'config.json'), '{"profiles": {', { mode: 0o600 });
    const r = await runCli(['config', 'set', 'base-url', 'https://a.example'], { env: envOf({ CRAWL_CONFIG_DIR: dir }) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`crawl: config file ${join(dir, 'config.json')} is not valid JSON\nhint: fix it by hand or move it aside`);
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe('{"profiles": {');
  });
});

describe('auth login', () => {
  it.concurrent('a plain http:// base URL to another host is refused before the key is asked for (exit 2)', async ({ expect }) => {
    const dir = freshDir();
    // In a terminal the prompt would wait for the key; the refusal comes first, and at once.
    const r = await runCli(['auth', 'login'], { env: envOf({ CRAWL_CONFIG_DIR: dir, CRAWL_BASE_URL: 'http://crawl.example' }), tty: true, timeoutMs: 5_000 });
    expect(r.timedOut).toBe(false);
    expect(r.code).toBe(2);
    expect(r.stdout).not.toContain('Paste your API key');
    expect(r.stdout).toMatch(/^crawl: refusing to send the API key over plain http:\/\/ to crawl\.example\n/);
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
  });

  it.concurrent('--with-key: a key the service rejects exits 4 and nothing is saved', async ({ expect }) => {
    const dir = freshDir();
    const r = await runCli(['auth', 'login', '--with-key', '--verbose'], { env: envOf({ CRAWL_CONFIG_DIR: dir, CRAWL_BASE_URL: fx.sandbox.url }), input: BAD_KEY + '\n' });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(`* Authorization: Bearer ${maskKey(BAD_KEY)}\n`);
    expect(r.stderr).toMatch(/\ncrawl: the service rejected the key \(HTTP 401\); nothing was saved\n/);
    expect(r.stderr).not.toContain(BAD_KEY);
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
  });

  it.concurrent('--with-key: a good key read from stdin is checked, then saved with the base URL (0600)', async ({ expect }) => {
    const dir = freshDir();
    const key = fx.sandbox.addKey('login').key;
    const r = await runCli(['auth', 'login', '--with-key'], { env: envOf({ CRAWL_CONFIG_DIR: dir, CRAWL_BASE_URL: fx.sandbox.url }), input: `  ${key}\n` });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`Logged in to ${fx.sandbox.url}/ (profile "default", key ${maskKey(key)}): the service accepts the key\n`);
    expect(readConfig(dir)).toEqual({ profiles: { default: { 'api-key': key, 'base-url': fx.sandbox.url + '/' } } });
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
    // The check happened against the service with that very key.
    expect(fx.sandbox.requests.some((q) => q.url === '/api/keys' && q.authorized)).toBe(true);

    const status = await authStatus([], envOf({ CRAWL_CONFIG_DIR: dir }));
    expect(status.code).toBe(0);
    expect(status.json).toMatchObject({ apiKeySource: 'config', baseUrlSource: 'config', accepted: true });
  });

  it('on a terminal: a hidden prompt, the key never echoed', async () => {
    const dir = freshDir();
    const key = fx.sandbox.addKey('typed').key;
    const r = await runCli(['auth', 'login'], {
      env: envOf({ CRAWL_CONFIG_DIR: dir, CRAWL_BASE_URL: fx.sandbox.url }),
      tty: true,
      // Typed once the prompt is up, as a person would: the terminal echoes nothing by then.
      onSpawn: (child, out) => {
        void waitFor(() => out.stdout().includes('Paste your API key'), 10_000, 'the prompt').then(() => child.stdin?.write(key + '\r'));
      },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('? Paste your API key:');
    expect(r.stdout).toContain(`Logged in to ${fx.sandbox.url}/`);
    expect(r.stdout).not.toContain(key);
    expect(readConfig(dir).profiles.default?.['api-key']).toBe(key);
  });

  it('Ctrl-C at the prompt: exit 130, nothing saved', async () => {
    const dir = freshDir();
    const r = await runCli(['auth', 'login'], {
      env: envOf({ CRAWL_CONFIG_DIR: dir, CRAWL_BASE_URL: fx.sandbox.url }),
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
    const env = envOf({ CRAWL_CONFIG_DIR: freshDir(), CRAWL_BASE_URL: fx.sandbox.url });
    const [noInput, piped] = await Promise.all([
      runCli(['auth', 'login', '--no-input'], { env }),
      runCli(['auth', 'login'], { env, input: fx.sandbox.key + '\n' }),
    ]);
    for (const r of [noInput, piped]) {
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('crawl auth login --with-key');
    }
  });

  it.concurrent('--no-input on a terminal does not prompt either', async ({ expect }) => {
    const r = await runCli(['auth', 'login', '--no-input'], {
      env: envOf({ CRAWL_CONFIG_DIR: freshDir(), CRAWL_BASE_URL: fx.sandbox.url }),
      tty: true,
    });
    expect(r.code).toBe(2);
    expect(r.stdout).not.toContain('Paste your API key');
  });
});

describe('auth status, token, logout', () => {
  it.concurrent('status shows base URL, profile, key source and masked key; accepted → 0', async ({ expect }) => {
    const env = envOf({ CRAWL_CONFIG_DIR: freshDir(), CRAWL_BASE_URL: fx.sandbox.url, CRAWL_API_KEY: fx.sandbox.key });
    const [plain, tty] = await Promise.all([runCli(['auth', 'status'], { env }), runCli(['auth', 'status'], { env, tty: true })]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toBe(
      [
        'profile\tdefault',
        `base-url\t${fx.sandbox.url}/`,
        'base-url-source\tenv',
        `api-key\t${maskKey(fx.sandbox.key)}`,
        'api-key-source\tenv',
        'accepted\ttrue',
        '',
      ].join('\n'),
    );
    expect(tty.code).toBe(0);
    expect(tty.stdout).toMatch(/Base URL\s+\S+ \(from CRAWL_BASE_URL\)/);
    expect(tty.stdout).toMatch(/Key\s+crk_\S+ \(from CRAWL_API_KEY\)/);
    expect(tty.stdout).toContain('the service accepts this key');
    for (const r of [plain, tty]) expect(r.stdout + r.stderr).not.toContain(fx.sandbox.key);
  });

  it.concurrent('a revoked, invalid or missing key → 4', async ({ expect }) => {
    const revoked = await revokedKey();
    const base = { CRAWL_CONFIG_DIR: freshDir(), CRAWL_BASE_URL: fx.sandbox.url };
    const [a, b, none] = await Promise.all([
      authStatus([], envOf({ ...base, CRAWL_API_KEY: revoked })),
      authStatus([], envOf({ ...base, CRAWL_API_KEY: BAD_KEY })),
      runCli(['auth', 'status'], { env: envOf(base), tty: true }),
    ]);
    for (const r of [a, b]) {
      expect(r.code).toBe(4);
      expect(r.json).toMatchObject({ accepted: false, httpStatus: 401 });
    }
    expect(a.stdout + a.stderr).not.toContain(revoked);
    // No key at all: reported as such, and "missing key" is exit 4 in the table.
    expect(none.code).toBe(4);
    expect(none.stdout).toMatch(/Key\s+none/);
    expect(none.stdout).toContain('no key: run `crawl auth login`');
  });

  it.concurrent('token prints the raw key alone on stdout; without a key, exit 2', async ({ expect }) => {
    const dir = configWith({ default: { 'base-url': fx.sandbox.url, 'api-key': fx.sandbox.key } });
    const [token, none] = await Promise.all([
      runCli(['auth', 'token'], { env: envOf({ CRAWL_CONFIG_DIR: dir }) }),
      runCli(['auth', 'token'], { env: envOf({ CRAWL_CONFIG_DIR: freshDir() }) }),
    ]);
    expect(token.code).toBe(0);
    expect(token.stdout).toBe(fx.sandbox.key + '\n');
    expect(token.stderr).toBe('');
    expect(none.code).toBe(2);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain('crawl auth login');
  });

  it.concurrent('logout forgets the key of the profile, keeps the rest; a second logout says so', async ({ expect }) => {
    const dir = configWith({
      default: { 'base-url': fx.sandbox.url, 'api-key': fx.sandbox.key },
      work: { 'base-url': fx.sandbox.url, 'api-key': BAD_KEY },
    });
    const env = envOf({ CRAWL_CONFIG_DIR: dir });
    const out = await runCli(['auth', 'logout'], { env });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toBe('Removed the key of profile "default"\n');
    expect(readConfig(dir).profiles).toEqual({
      default: { 'base-url': fx.sandbox.url },
      work: { 'base-url': fx.sandbox.url, 'api-key': BAD_KEY },
    });
    const [again, token] = await Promise.all([runCli(['auth', 'logout'], { env }), runCli(['auth', 'token'], { env })]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toBe('No key was stored for profile "default"\n');
    expect(token.code).toBe(2);
  });
});

// Make sure the tests above never wrote outside their own folders.
describe('isolation', () => {
  it('the fixture folder is untouched by these tests', () => {
    mkdirSync(fx.configDir, { recursive: true });
    expect(readdirSync(fx.configDir)).toEqual([]);
  });
});

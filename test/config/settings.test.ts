// Where settings come from (flag > env > config profile > default), which profile, and which
// config folder, as every command sees them. The config and auth commands are tested in
// test/commands/config/ and test/commands/auth/.
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maskKey } from '../../src/text/mask.js';
import { runCli } from '../support/harness.js';
import { BAD_KEY, envOf, deadBaseUrl, configFolders } from '../support/settings.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';

let fx: SandboxFixture;
const folders = configFolders();
let deadBase: string;

beforeAll(async () => {
  fx = await sandboxFixture();
  deadBase = await deadBaseUrl();
});
afterAll(async () => {
  folders.cleanup();
  await fx.close();
});

async function authStatus(args: string[], env: Record<string, string | undefined>) {
  const r = await runCli(['auth', 'status', '--json', ...args], { env });
  return { ...r, json: r.stdout ? JSON.parse(r.stdout) : undefined };
}

describe('precedence: flag > environment > config profile > default', () => {
  it.concurrent('the config file answers when nothing else does', async ({ expect }) => {
    const dir = folders.with({ default: { 'base-url': fx.sandbox.url, 'api-key': fx.sandbox.key } });
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
    const dir = folders.with({ default: { 'base-url': deadBase, 'api-key': BAD_KEY } });
    const r = await authStatus([], envOf({ CRAWL_CONFIG_DIR: dir, CRAWL_BASE_URL: fx.sandbox.url, CRAWL_API_KEY: fx.sandbox.key }));
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ baseUrlSource: 'env', apiKeySource: 'env', accepted: true });
  });

  it.concurrent('the --base-url flag beats the environment', async ({ expect }) => {
    const dir = folders.fresh();
    const r = await authStatus(['--base-url', fx.sandbox.url], envOf({ CRAWL_CONFIG_DIR: dir, CRAWL_BASE_URL: deadBase, CRAWL_API_KEY: fx.sandbox.key }));
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ baseUrl: fx.sandbox.url + '/', baseUrlSource: 'flag', accepted: true });
  });

  it.concurrent('a job command uses the same precedence (a dead config base URL is not used)', async ({ expect }) => {
    const dir = folders.with({ default: { 'base-url': deadBase, 'api-key': BAD_KEY } });
    const r = await runCli(['job', 'demo-small'], { env: envOf({ CRAWL_CONFIG_DIR: dir, CRAWL_BASE_URL: fx.sandbox.url, CRAWL_API_KEY: fx.sandbox.key }) });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('id\tdemo-small\n');
  });

  it.concurrent('no base URL anywhere: exit 2 naming the fix', async ({ expect }) => {
    const r = await runCli(['job', 'demo-small'], { env: envOf({ CRAWL_CONFIG_DIR: folders.fresh(), CRAWL_API_KEY: fx.sandbox.key }) });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'crawl: no base URL configured\nhint: run `crawl config set base-url <url>`, set CRAWL_BASE_URL, or pass --base-url\n',
    );
  });

  it.concurrent('no key anywhere: exit 2 naming the fix, and nothing is sent', async ({ expect }) => {
    const r = await runCli(['job', 'keyless'], { env: envOf({ CRAWL_CONFIG_DIR: folders.fresh(), CRAWL_BASE_URL: fx.sandbox.url }) });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('crawl: no API key configured\nhint: run `crawl auth login` or set CRAWL_API_KEY\n');
    expect(fx.sandbox.requests.filter((q) => q.url.includes('keyless'))).toEqual([]);
  });

  it.concurrent('a key is never taken as a flag', async ({ expect }) => {
    const r = await runCli(['job', 'demo-small', '--api-key', fx.sandbox.key], { env: envOf({ CRAWL_CONFIG_DIR: folders.fresh(), CRAWL_BASE_URL: fx.sandbox.url }) });
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
    dir = folders.with({
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
    const home = folders.fresh();
    const xdg = folders.fresh();
    const own = folders.fresh();
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
    const xdg = folders.fresh();
    const env = envOf({ HOME: folders.fresh(), XDG_CONFIG_HOME: xdg, CRAWL_CONFIG_DIR: undefined });
    const set = await runCli(['config', 'set', 'base-url', 'https://crawl.example.com'], { env });
    expect(set.code).toBe(0);
    expect(folders.read(join(xdg, 'crawl')).profiles.default?.['base-url']).toBe('https://crawl.example.com');
    const get = await runCli(['config', 'get', 'base-url'], { env });
    expect(get.stdout).toBe('https://crawl.example.com\n');
  });
});

// Make sure the tests above never wrote outside their own folders.
describe('isolation', () => {
  it('the fixture folder is untouched by these tests', () => {
    mkdirSync(fx.configDir, { recursive: true });
    expect(readdirSync(fx.configDir)).toEqual([]);
  });
});

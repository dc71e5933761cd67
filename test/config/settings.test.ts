// Where settings come from (flag > env > config profile > default), which profile, and which
// config folder, as every command sees them; a key that cannot be sent, refused before any
// request. The config and auth commands are tested in test/commands/config/ and test/commands/auth/.
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Settings } from '../../src/config/settings.js';
import { maskKey } from '../../src/text/mask.js';
import { crawl, runCli, tempDir } from '../support/harness.js';
import { brokenKey, expectNoBrokenKeyIn, KEY_DEFECTS, STORED_KEY_DEFECTS } from '../support/key-forms.js';
import { configFolderWith } from '../support/local-faults.js';
import { withOwnSandbox } from '../support/sandbox.js';
import { authStatus, BAD_KEY, deadBaseUrl, envOf, fiveProfiles, settingsSuite } from '../support/settings.js';

const suite = settingsSuite();
const folders = suite.folders;
let deadBase: string;

beforeAll(async () => {
  deadBase = await deadBaseUrl();
});

describe('precedence: flag > environment > config profile > default', () => {
  it.concurrent('the config file answers when nothing else does', async ({ expect }) => {
    const dir = folders.with({ default: { 'base-url': suite.fx.sandbox.url, 'api-key': suite.fx.sandbox.key } });
    const r = await authStatus([], envOf({ CRAWL_CONFIG_DIR: dir }));
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({
      profile: 'default',
      baseUrl: suite.fx.sandbox.url + '/',
      baseUrlSource: 'config',
      apiKey: maskKey(suite.fx.sandbox.key),
      apiKeySource: 'config',
      accepted: true,
    });
  });

  it.concurrent('the environment beats the config file, for base URL and key', async ({ expect }) => {
    const dir = folders.with({ default: { 'base-url': deadBase, 'api-key': BAD_KEY } });
    const r = await authStatus([], envOf({ CRAWL_CONFIG_DIR: dir, CRAWL_BASE_URL: suite.fx.sandbox.url, CRAWL_API_KEY: suite.fx.sandbox.key }));
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ baseUrlSource: 'env', apiKeySource: 'env', accepted: true });
  });

  it.concurrent('the --base-url flag beats the environment', async ({ expect }) => {
    const dir = folders.fresh();
    const r = await authStatus(['--base-url', suite.fx.sandbox.url], envOf({ CRAWL_CONFIG_DIR: dir, CRAWL_BASE_URL: deadBase, CRAWL_API_KEY: suite.fx.sandbox.key }));
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ baseUrl: suite.fx.sandbox.url + '/', baseUrlSource: 'flag', accepted: true });
  });

  it.concurrent('a job command uses the same precedence (a dead config base URL is not used)', async ({ expect }) => {
    const dir = folders.with({ default: { 'base-url': deadBase, 'api-key': BAD_KEY } });
    const r = await runCli(['job', 'demo-small'], { env: envOf({ CRAWL_CONFIG_DIR: dir, CRAWL_BASE_URL: suite.fx.sandbox.url, CRAWL_API_KEY: suite.fx.sandbox.key }) });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('id\tdemo-small\n');
  });

  it.concurrent('no base URL anywhere: exit 2 naming the fix', async ({ expect }) => {
    const r = await runCli(['job', 'demo-small'], { env: envOf({ CRAWL_CONFIG_DIR: folders.fresh(), CRAWL_API_KEY: suite.fx.sandbox.key }) });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'crawl: no base URL configured\nhint: run `crawl config set base-url <url>`, set CRAWL_BASE_URL, or pass --base-url\n',
    );
  });

  it.concurrent('no key anywhere: exit 2 naming the fix, and nothing is sent', async ({ expect }) => {
    const r = await runCli(['job', 'keyless'], { env: envOf({ CRAWL_CONFIG_DIR: folders.fresh(), CRAWL_BASE_URL: suite.fx.sandbox.url }) });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('crawl: no API key configured\nhint: run `crawl auth login` or set CRAWL_API_KEY\n');
    expect(suite.fx.sandbox.requests.filter((q) => q.url.includes('keyless'))).toEqual([]);
  });

  it.concurrent('a key is never taken as a flag', async ({ expect }) => {
    const r = await runCli(['job', 'demo-small', '--api-key', suite.fx.sandbox.key], { env: envOf({ CRAWL_CONFIG_DIR: folders.fresh(), CRAWL_BASE_URL: suite.fx.sandbox.url }) });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^crawl: unknown option '--api-key'/);
    expect(r.stderr).not.toContain(suite.fx.sandbox.key);
  });
});

describe('profiles: --profile > CRAWL_PROFILE > "default"', () => {
  let dir: string;
  let workKey: string;
  beforeAll(() => {
    workKey = suite.fx.sandbox.addKey('work').key;
    dir = folders.with({
      default: { 'base-url': suite.fx.sandbox.url, 'api-key': BAD_KEY },
      work: { 'base-url': suite.fx.sandbox.url, 'api-key': workKey },
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
    expect(r.stdout).toBe(`profile\tdefault\tdefault\nbase-url\t${suite.fx.sandbox.url}\tconfig\napi-key\t${maskKey(BAD_KEY)}\tconfig\n`);
  });

  it.concurrent('a profile name that could escape the file is refused', async ({ expect }) => {
    const r = await runCli(['config', 'list', '--profile', '../x'], { env: envOf({ CRAWL_CONFIG_DIR: dir }) });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^crawl: invalid profile name "\.\.\/x"/);
  });
});

describe('the config file is looked for only when needed', () => {
  it('flags and variables that answer everything: the config folder is never looked up', async () => {
    const read = new Set<PropertyKey>();
    const values: Record<string, string> = { CRAWL_BASE_URL: 'https://crawl.example', CRAWL_API_KEY: 'crk_fromTheEnvironment01', HOME: '/nowhere' };
    const env = new Proxy(values as Record<string, string | undefined>, { get: (target, name) => (read.add(name), target[name as string]) });
    const settings = new Settings(env, {}, {}, {}, { os: 'linux', home: '/nowhere' });
    expect(settings.baseUrl()).toEqual({ value: 'https://crawl.example', source: 'env' });
    expect((await settings.apiKey())?.source).toBe('env');
    expect([...read].filter((name) => name === 'CRAWL_CONFIG_DIR' || name === 'XDG_CONFIG_HOME')).toEqual([]);
    expect(settings.store.path).toBe('/nowhere/.config/crawl/config.json');
    expect(read.has('CRAWL_CONFIG_DIR')).toBe(true);
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
    mkdirSync(suite.fx.configDir, { recursive: true });
    expect(readdirSync(suite.fx.configDir)).toEqual([]);
  });
});

describe('a mistyped profile', () => {
  // A mistyped profile (--profile or CRAWL_PROFILE) gets "did you mean" among the profiles the
  // config file has, and still says how to create the one named; a name near none gets the latter
  // alone. In this process; nothing is sent.
  let tmp: { dir: string; cleanup: () => void };
  let config: { dir: string; file: string };
  beforeAll(() => {
    tmp = tempDir('crawl-profile-typo-');
    config = configFolderWith(tmp.dir, {
      profiles: {
        default: { 'base-url': 'http://127.0.0.1:9' },
        staging: { 'base-url': 'http://127.0.0.1:9' },
        production: { 'base-url': 'http://127.0.0.1:9' },
      },
    });
  });
  afterAll(() => tmp.cleanup());

  describe('an unknown profile: did you mean', () => {
    it.each([
      [['--profile', 'stagin', 'keys', 'list'], {}, 'stagin', 'did you mean "staging" (--profile staging)?'],
      [['keys', 'list'], { CRAWL_PROFILE: 'prodution' }, 'prodution', 'did you mean "production" (CRAWL_PROFILE=production)?'],
      [['--profile', 'Staging', 'config', 'list'], {}, 'Staging', 'did you mean "staging" (--profile staging)?'],
    ])('crawl %j %j', async (argv, env, name, meant) => {
      const r = await crawl(argv, { env: { CRAWL_CONFIG_DIR: config.dir, ...env } });
      expect(r.code).toBe(2);
      const [message = '', hint = ''] = r.stderr.split('\n');
      expect(message).toBe(`crawl: unknown profile "${name}" (from ${'CRAWL_PROFILE' in env ? 'CRAWL_PROFILE' : '--profile'}): the profiles in ${config.file} are "default", "staging", "production"`);
      expect(hint).toBe(`hint: ${meant} To create "${name}": \`crawl --profile ${name} config set base-url <url>\`, then \`crawl --profile ${name} auth login\``);
    });

    it('a name near none of them: how to create it, and no guess', async () => {
      const r = await crawl(['--profile', 'laptop', 'keys', 'list'], { env: { CRAWL_CONFIG_DIR: config.dir } });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('hint: to create it: `crawl --profile laptop config set base-url <url>`');
      expect(r.stderr).not.toContain('did you mean');
    });
  });

  describe('with the five profiles of fiveProfiles()', () => {
    let config: { dir: string; file: string };
    beforeAll(async () => {
      config = await fiveProfiles(suite.fx.sandbox, folders.fresh());
    });
    /** The config file only: no CRAWL_* from the fixture. */
    const fromConfig = (extra: Record<string, string> = {}): Record<string, string> => ({ CRAWL_CONFIG_DIR: config.dir, ...extra });

    describe('a profile the config file does not have is unknown, not empty', () => {
      it.each([
        [['--profile', 'cii', 'keys', 'list'], {}, '--profile'],
        [['keys', 'list'], { CRAWL_PROFILE: 'cii' }, 'CRAWL_PROFILE'],
        [['config', 'list', '--profile', 'cii'], {}, '--profile'],
        [['auth', 'logout', '--profile', 'cii'], {}, '--profile'],
      ])('crawl %j', async (argv, env, from) => {
        const r = await crawl(argv, { env: fromConfig(env) });
        expect(r.code).toBe(2);
        expect(r.stdout).toBe('');
        expect(r.stderr).toBe(
          `crawl: unknown profile "cii" (from ${from}): the profiles in ${config.file} are "default", "ci", "nokey", "stale", "nourl"\n` +
            `hint: did you mean "ci" (${from === '--profile' ? '--profile ci' : 'CRAWL_PROFILE=ci'})? To create "cii": \`crawl --profile cii config set base-url <url>\`, then \`crawl --profile cii auth login\`\n`,
        );
      });

      it('is not needed when the environment gives the base URL and the key; a new profile can be created', async () => {
        const [envOnly, set] = await Promise.all([
          crawl(['--profile', 'cii', 'job', 'demo-small'], { env: fromConfig({ CRAWL_BASE_URL: suite.fx.sandbox.url, CRAWL_API_KEY: suite.fx.sandbox.key }) }),
          crawl(['--profile', 'fresh', 'config', 'set', 'base-url', suite.fx.sandbox.url], { env: fromConfig() }),
        ]);
        expect(envOnly.code).toBe(0);
        expect(set.code).toBe(0);
        const login = await crawl(['--profile', 'fresh', 'auth', 'login', '--with-key'], { env: fromConfig(), input: suite.fx.sandbox.key });
        expect(login.code).toBe(0);
        const used = await crawl(['--profile', 'fresh', 'job', 'demo-small'], { env: fromConfig() });
        expect(used.code).toBe(0);
      });
    });
  });
});

describe('a key that cannot be sent', () => {
  // A key that cannot be a bearer token, from CRAWL_API_KEY or the config file: refused at once
  // with one line naming where it came from and the character, no request made, the file as it was.
  const ENV_HINT = 'hint: set CRAWL_API_KEY to the key alone, exactly as it was issued\n';

  it.concurrent.for(KEY_DEFECTS)('in CRAWL_API_KEY, %s: exit 2 naming CRAWL_API_KEY and the character, no request', async ([, inside, says], { expect }) => {
    await withOwnSandbox(async (own) => {
      const r = await runCli(['job', 'status', 'some-job'], { env: envOf({ CRAWL_CONFIG_DIR: folders.holding({}).dir, CRAWL_BASE_URL: own.sandbox.url, CRAWL_API_KEY: brokenKey(inside) }) });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`crawl: CRAWL_API_KEY contains ${says}; refusing to send it\n${ENV_HINT}`);
      expectNoBrokenKeyIn(r.stderr);
      expect(own.sandbox.requests).toEqual([]);
    });
  });

  it.concurrent.for(STORED_KEY_DEFECTS)('in the config file, %s: exit 2 naming the file and the profile, no request', async ([, inside, says], { expect }) => {
    await withOwnSandbox(async (own) => {
      const { dir, file } = folders.holding({ profiles: { default: { 'base-url': own.sandbox.url, 'api-key': brokenKey(inside) } } });
      const before = readFileSync(file);
      const r = await runCli(['job', 'status', 'some-job'], { env: envOf({ CRAWL_CONFIG_DIR: dir }) });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        `crawl: the API key of profile "default" in ${file} contains ${says}; refusing to send it\n` +
          'hint: store the key again with `crawl auth login --with-key < keyfile`\n',
      );
      expectNoBrokenKeyIn(r.stderr);
      expect(own.sandbox.requests).toEqual([]);
      expect(readFileSync(file).equals(before)).toBe(true);
    });
  });

  it.concurrent('every command that uses the key refuses it the same way, before any request', async ({ expect }) => {
    await withOwnSandbox(async (own) => {
      const { dir, file } = folders.holding({
        profiles: { work: { 'base-url': own.sandbox.url, 'api-key': brokenKey('\r\nX-Injected: 1') } },
      });
      const env = envOf({ CRAWL_CONFIG_DIR: dir, CRAWL_PROFILE: 'work' });
      const commands = [
        ['job', 'status', 'x'],
        ['job', 'watch', 'x'],
        ['job', 'pages', 'x'],
        ['job', 'cancel', 'x'],
        ['keys', 'list'],
        ['keys', 'create', 'n'],
        ['keys', 'revoke', 'key_1', '--yes'],
        ['keys', 'rotate', '--yes'],
        ['auth', 'token'],
        ['auth', 'status'],
      ];
      const results = await Promise.all(commands.map((args) => runCli(args, { env })));
      for (const [i, r] of results.entries()) {
        expect([commands[i], r.code]).toEqual([commands[i], 2]);
        expect(r.stdout).toBe('');
        expect(r.stderr).toBe(
          `crawl: the API key of profile "work" in ${file} contains a line break (CR, U+000D); refusing to send it\n` +
            'hint: store the key again with `crawl --profile work auth login --with-key < keyfile`\n',
        );
      }
      expect(own.sandbox.requests).toEqual([]);
    });
  });

  it.concurrent('spaces, tabs and line breaks around CRAWL_API_KEY are dropped; other characters around it are not', async ({ expect }) => {
    const env = (key: string) => envOf({ CRAWL_CONFIG_DIR: folders.holding({}).dir, CRAWL_BASE_URL: suite.fx.sandbox.url, CRAWL_API_KEY: key });
    const around = [`${suite.fx.sandbox.key}\n`, `${suite.fx.sandbox.key}\r\n`, ` \t${suite.fx.sandbox.key}  `, `\n\n${suite.fx.sandbox.key}\r`];
    const kept = await Promise.all(around.map((key) => runCli(['keys', 'list', '--json'], { env: env(key) })));
    for (const r of kept) {
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ success: true });
    }
    const [nbsp, bom] = await Promise.all([
      runCli(['keys', 'list'], { env: env(`\u00a0${suite.fx.sandbox.key}`) }),
      runCli(['keys', 'list'], { env: env(`\ufeff${suite.fx.sandbox.key}`) }),
    ]);
    expect([nbsp.code, bom.code]).toEqual([2, 2]);
    expect(nbsp.stderr).toMatch(/^crawl: CRAWL_API_KEY contains white space \(U\+00A0\); refusing to send it\n/);
    expect(bom.stderr).toMatch(/^crawl: CRAWL_API_KEY contains an invisible character \(U\+FEFF\); refusing to send it\n/);
    for (const r of [nbsp, bom]) expect(r.stderr).not.toContain(suite.fx.sandbox.key);
  });

  it.concurrent('a bad key in CRAWL_API_KEY is refused even when the config holds a good one (no silent fallback)', async ({ expect }) => {
    const { dir } = folders.holding({ profiles: { default: { 'base-url': suite.fx.sandbox.url, 'api-key': suite.fx.sandbox.key } } });
    const r = await runCli(['auth', 'token'], { env: envOf({ CRAWL_CONFIG_DIR: dir, CRAWL_API_KEY: brokenKey('\n') }) });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^crawl: CRAWL_API_KEY contains a line break/);
  });

});

// `config get` and `config list`: the key masked, an unset setting.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maskKey } from '../../../src/text/mask.js';
import { crawl, runCli, tempDir } from '../../support/harness.js';
import { brokenKey, expectNoBrokenKeyIn } from '../../support/key-forms.js';
import { envOf, settingsSuite } from '../../support/settings.js';

const suite = settingsSuite();
const folders = suite.folders;

describe('config get and config list', () => {
  it.concurrent('get and list mask the key; get of an unset setting exits 1 with a hint', async ({ expect }) => {
    const dir = folders.with({ default: { 'base-url': 'https://a.example/', 'api-key': suite.fx.sandbox.key }, empty: {} });
    const env = envOf({ CRAWL_CONFIG_DIR: dir });
    const [get, list, listJson, missing] = await Promise.all([
      runCli(['config', 'get', 'api-key'], { env }),
      runCli(['config', 'list'], { env }),
      runCli(['config', 'list', '--json'], { env }),
      runCli(['config', 'get', 'base-url', '--profile', 'empty'], { env }),
    ]);
    expect(get.stdout).toBe(maskKey(suite.fx.sandbox.key) + '\n');
    expect(list.stdout).toBe(`profile\tdefault\tdefault\nbase-url\thttps://a.example/\tconfig\napi-key\t${maskKey(suite.fx.sandbox.key)}\tconfig\n`);
    expect(JSON.parse(listJson.stdout)).toEqual({
      profile: 'default',
      'base-url': 'https://a.example/',
      'api-key': maskKey(suite.fx.sandbox.key),
      sources: { profile: 'default', 'base-url': 'config', 'api-key': 'config' },
      overridden: {},
    });
    for (const r of [get, list, listJson]) {
      expect(r.code).toBe(0);
      expect(r.stdout + r.stderr).not.toContain(suite.fx.sandbox.key);
    }
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('crawl: base-url is not set in profile "empty"\nhint: run `crawl --profile empty config set base-url <value>`\n');
    // What crawl records itself is not pointed at `config set`, which refuses it.
    const [store, key] = await Promise.all([runCli(['config', 'get', 'key-store'], { env }), runCli(['config', 'get', 'api-key', '--profile', 'empty'], { env })]);
    expect([store.code, store.stderr]).toEqual([
      1,
      'crawl: key-store is not set in profile "default"\nhint: crawl records it when `crawl auth login` stores the key in a system keyring; `crawl auth status` says where the key is\n',
    ]);
    expect(key.stderr).toBe('crawl: api-key is not set in profile "empty"\nhint: run `crawl --profile empty auth login`\n');
  });
});

describe('overridden in this run', () => {
  // `config get` prints the profile's own value; when a flag or the environment overrides it in
  // this run, it says so (a note on stderr, `overriddenBy` with --json), with what commands use.
  const FILE_KEY = 'crk_fileKEY0123456789abcdefghijklmnop';
  const ENV_KEY = 'crk_envKEY9876543210zyxwvutsrqponmlk';
  let tmp: { dir: string; cleanup: () => void };
  let env: Record<string, string>;
  beforeAll(() => {
    tmp = tempDir('crawl-config-get-');
    writeFileSync(join(tmp.dir, 'config.json'), JSON.stringify({ profiles: { default: { 'base-url': 'https://file.example/', 'api-key': FILE_KEY } } }), { mode: 0o600 });
    env = { CRAWL_CONFIG_DIR: tmp.dir };
  });
  afterAll(() => tmp.cleanup());

  describe('config get', () => {
    it('nothing overrides: the value alone', async () => {
      const r = await crawl(['config', 'get', 'base-url'], { env });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('https://file.example/\n');
      expect(r.stderr).toBe('');
    });

    it('CRAWL_BASE_URL overrides: the profile\'s value, and a note naming the variable and the value used', async () => {
      const r = await crawl(['config', 'get', 'base-url'], { env: { ...env, CRAWL_BASE_URL: 'http://127.0.0.1:9/' } });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('https://file.example/\n');
      expect(r.stderr).toBe('note: CRAWL_BASE_URL is set in this run: commands use http://127.0.0.1:9/, not this value\n');
    });

    it('--base-url overrides too; the same value is said to be the same', async () => {
      const flag = await crawl(['config', 'get', 'base-url', '--base-url', 'http://127.0.0.1:8/'], { env });
      expect(flag.stderr).toBe('note: --base-url is set in this run: commands use http://127.0.0.1:8/, not this value\n');
      const same = await crawl(['config', 'get', 'base-url'], { env: { ...env, CRAWL_BASE_URL: 'https://file.example/' } });
      expect(same.stderr).toBe('note: CRAWL_BASE_URL is set in this run, to this same value\n');
    });

    it('CRAWL_API_KEY overrides the stored key: both masked', async () => {
      const r = await crawl(['config', 'get', 'api-key'], { env: { ...env, CRAWL_API_KEY: ENV_KEY } });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(maskKey(FILE_KEY) + '\n');
      expect(r.stderr).toBe(`note: CRAWL_API_KEY is set in this run: commands use ${maskKey(ENV_KEY)}, not this value\n`);
      expect(r.stdout + r.stderr).not.toContain(ENV_KEY);
      expect(r.stdout + r.stderr).not.toContain(FILE_KEY);
    });

    it('not in the profile but set in the environment: the note, then the error', async () => {
      const empty = tempDir('crawl-config-get-empty-');
      const r = await crawl(['config', 'get', 'base-url'], { env: { CRAWL_CONFIG_DIR: empty.dir, CRAWL_BASE_URL: 'http://127.0.0.1:9/' } });
      empty.cleanup();
      expect(r.code).toBe(1);
      expect(r.stderr.split('\n')[0]).toBe('note: CRAWL_BASE_URL is set in this run: commands use http://127.0.0.1:9/');
      expect(r.stderr).toContain('crawl: base-url is not set in profile "default"');
    });

    it('--json: overriddenBy names what wins, null when nothing does', async () => {
      const over = await crawl(['config', 'get', 'base-url', '--json'], { env: { ...env, CRAWL_BASE_URL: 'http://127.0.0.1:9/' } });
      expect(JSON.parse(over.stdout)).toEqual({ profile: 'default', key: 'base-url', value: 'https://file.example/', overriddenBy: 'CRAWL_BASE_URL' });
      expect(over.stderr).toBe('');
      const plain = await crawl(['config', 'get', 'base-url', '--json'], { env });
      expect(JSON.parse(plain.stdout)).toMatchObject({ overriddenBy: null });
    });
  });
});

describe('a stored key that cannot be sent', () => {
  it.concurrent('a bad stored key is shown as unusable by config get/list (nothing of it printed) and can be replaced or removed', async ({ expect }) => {
    const { dir, file } = folders.holding({
      profiles: {
        default: { 'base-url': suite.fx.sandbox.url, 'api-key': brokenKey('\u001b]0;pwned\u0007') },
        other: { 'base-url': suite.fx.sandbox.url, 'api-key': brokenKey('\n') },
      },
    });
    const env = envOf({ CRAWL_CONFIG_DIR: dir });
    const [get, list, listJson] = await Promise.all([
      runCli(['config', 'get', 'api-key'], { env }),
      runCli(['config', 'list'], { env, tty: true }),
      runCli(['config', 'list', '--json'], { env }),
    ]);
    expect(get.code).toBe(0);
    expect(get.stdout).toBe('(unusable: it contains a control character (U+001B))\n');
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/api-key\s+\(unusable: it contains a control character \(U\+001B\)\)/);
    expect(JSON.parse(listJson.stdout)['api-key']).toBe('(unusable: it contains a control character (U+001B))');
    for (const r of [get, list, listJson]) {
      expectNoBrokenKeyIn(r.stdout + r.stderr);
      expect(r.stdout).not.toContain('\u001b');
    }
    // Replaced by a good key through login, and removed by logout: neither needs the bad key.
    const login = await runCli(['auth', 'login', '--with-key'], { env, input: suite.fx.sandbox.key + '\n' });
    expect(login.code, login.stderr).toBe(0);
    const logout = await runCli(['auth', 'logout', '--profile', 'other'], { env });
    expect(logout.code, logout.stderr).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles).toEqual({
      default: { 'base-url': suite.fx.sandbox.url, 'api-key': suite.fx.sandbox.key },
      other: { 'base-url': suite.fx.sandbox.url },
    });
    const status = await runCli(['job', 'status', 'nope'], { env });
    expect(status.code).toBe(3);
  });

});

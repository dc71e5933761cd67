// `config set`: what it writes (a private 0600 file, atomically), what it refuses, a config file
// that is not JSON, and a base URL that `config get` answers as it was set.
import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { crawl, runCli } from '../../support/harness.js';
import { BAD_KEY, envOf, settingsSuite } from '../../support/settings.js';

const suite = settingsSuite();
const folders = suite.folders;

describe('config set', () => {
  it.concurrent('set writes config.json with mode 0600 in a private folder, as valid JSON', async ({ expect }) => {
    const dir = join(folders.fresh(), 'nested', 'crawl');
    const r = await runCli(['config', 'set', 'base-url', 'https://crawl.example.com/v1'], { env: envOf({ CRAWL_CONFIG_DIR: dir }) });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('Set base-url of profile "default" to https://crawl.example.com/v1\n');
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o077).toBe(0);
    expect(folders.read(dir)).toEqual({ profiles: { default: { 'base-url': 'https://crawl.example.com/v1' } } });
  });

  it.concurrent('set replaces the file atomically (a new file renamed over it), keeping other profiles', async ({ expect }) => {
    const dir = folders.with({ other: { 'base-url': 'https://other.example/', 'api-key': BAD_KEY } });
    // A file left readable by others (edited by hand) comes back private.
    chmodSync(join(dir, 'config.json'), 0o644);
    const before = statSync(join(dir, 'config.json')).ino;
    const r = await runCli(['config', 'set', 'base-url', 'https://work.example', '--profile', 'work'], { env: envOf({ CRAWL_CONFIG_DIR: dir }) });
    expect(r.code).toBe(0);
    expect(statSync(join(dir, 'config.json')).ino).not.toBe(before);
    expect(readdirSync(dir)).toEqual(['config.json']);
    expect(folders.read(dir).profiles).toEqual({
      other: { 'base-url': 'https://other.example/', 'api-key': BAD_KEY },
      work: { 'base-url': 'https://work.example' },
    });
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
  });

  it.concurrent('set api-key is refused (exit 2) and the file is untouched', async ({ expect }) => {
    const dir = folders.with({ default: { 'base-url': 'https://a.example/' } });
    const before = readFileSync(join(dir, 'config.json'), 'utf8');
    const r = await runCli(['config', 'set', 'api-key', 'crk_on_the_command_line'], { env: envOf({ CRAWL_CONFIG_DIR: dir }) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('crawl auth login --with-key');
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(before);
  });

  it.concurrent('set refuses what is not a base URL, and unknown settings (exit 2)', async ({ expect }) => {
    const env = envOf({ CRAWL_CONFIG_DIR: folders.fresh() });
    const [notUrl, unknown] = await Promise.all([
      runCli(['config', 'set', 'base-url', 'crawl.example.com'], { env }),
      runCli(['config', 'get', 'colour'], { env }),
    ]);
    expect(notUrl.code).toBe(2);
    expect(notUrl.stderr).toMatch(/^crawl: invalid base URL "crawl\.example\.com"/);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^crawl: unknown config key "colour"\nhint: known keys: base-url, api-key, key-store, keyring-service, keyring-account, key-command, key-store-command\n$/);
  });

  it.concurrent('a config file that is not JSON is reported, never overwritten', async ({ expect }) => {
    const dir = folders.fresh();
    writeFileSync(join(dir, 'config.json'), '{"profiles": {', { mode: 0o600 });
    const r = await runCli(['config', 'set', 'base-url', 'https://a.example'], { env: envOf({ CRAWL_CONFIG_DIR: dir }) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`crawl: config file ${join(dir, 'config.json')} is not valid JSON\nhint: fix it by hand or move it aside`);
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe('{"profiles": {');
  });
});

describe('config set base-url: get answers what set stored', () => {
  it.concurrent.for([
    'https://crawl.example.com',
    'https://crawl.example.com/',
    'https://crawl.example.com/api/v1',
    'https://crawl.example.com/api/v1/',
    'http://127.0.0.1:8787',
    'https://[::1]:8443/x',
  ])('%s comes back unchanged, in plain and --json output', async (value, { expect }) => {
    const { dir, file } = folders.holding({});
    const env = envOf({ CRAWL_CONFIG_DIR: dir });
    const set = await runCli(['config', 'set', 'base-url', value, '--json'], { env });
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({ profile: 'default', key: 'base-url', value });
    const [get, getJson] = await Promise.all([runCli(['config', 'get', 'base-url'], { env }), runCli(['config', 'get', 'base-url', '--json'], { env })]);
    expect(get.stdout).toBe(value + '\n');
    expect(JSON.parse(getJson.stdout).value).toBe(value);
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles.default['base-url']).toBe(value);
  });

  it.concurrent('white space around the value is trimmed', async ({ expect }) => {
    const { dir } = folders.holding({});
    const env = envOf({ CRAWL_CONFIG_DIR: dir });
    const set = await runCli(['config', 'set', 'base-url', '  https://crawl.example.com/x \n'], { env });
    expect(set.stderr).toBe('Set base-url of profile "default" to https://crawl.example.com/x\n');
    expect((await runCli(['config', 'get', 'base-url'], { env })).stdout).toBe('https://crawl.example.com/x\n');
  });

  it.concurrent('is still validated first: not a URL, another scheme, credentials: exit 2, the file untouched', async ({ expect }) => {
    const { dir, file } = folders.holding({ profiles: { default: { 'base-url': 'https://kept.example' } } });
    const before = readFileSync(file);
    const env = envOf({ CRAWL_CONFIG_DIR: dir });
    const results = await Promise.all(
      ['crawl.example.com', 'ftp://crawl.example.com', 'https://user:pw@crawl.example.com', ''].map((v) => runCli(['config', 'set', 'base-url', v], { env })),
    );
    for (const r of results) {
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^crawl: (invalid base URL|the base URL must not contain credentials)/);
    }
    expect(results[2]?.stderr).not.toContain('pw@');
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it.concurrent('normalised where it is used: with or without a trailing slash, and as older versions stored it', async ({ expect }) => {
    suite.fx.sandbox.addJob({ id: 'as-set', status: 'completed', pagesTotal: 1 });
    for (const value of [suite.fx.sandbox.url, suite.fx.sandbox.url + '/']) {
      const { dir } = folders.holding({});
      const env = envOf({ CRAWL_CONFIG_DIR: dir, CRAWL_API_KEY: suite.fx.sandbox.key });
      expect((await runCli(['config', 'set', 'base-url', value], { env })).code).toBe(0);
      const status = await runCli(['job', 'status', 'as-set'], { env });
      expect(status.code, status.stderr).toBe(0);
      expect(status.stdout).toContain('id\tas-set\n');
      const auth = await runCli(['auth', 'status', '--json'], { env });
      expect(JSON.parse(auth.stdout).baseUrl).toBe(suite.fx.sandbox.url + '/');
    }
  });
});

describe('`config set base-url` to plain http:// on another host warns at once', () => {
  it.each([
    ['http://crawl.internal.example:8080', true],
    ['https://crawl.example.com', false],
    ['http://127.0.0.1:8787', false],
    ['http://localhost:8787', false],
  ])('%s', async (url, warns) => {
    const env = { CRAWL_CONFIG_DIR: join(folders.fresh(), 'crawl') };
    const [plain, json] = await Promise.all([
      crawl(['config', 'set', 'base-url', url], { env }),
      crawl(['config', 'set', 'base-url', url, '--json'], { env: { CRAWL_CONFIG_DIR: join(folders.fresh(), 'crawl') } }),
    ]);
    expect(plain.code).toBe(0);
    expect(json.code).toBe(0);
    const warning = `commands will refuse to send the API key over plain http:// to ${new URL(url).host} unless given --allow-http: the key would cross the network in clear; use https:// if the service has it`;
    if (warns) {
      expect(plain.stderr).toContain(`crawl: warning: ${warning}\n`);
      expect(JSON.parse(json.stdout)).toEqual({ profile: 'default', key: 'base-url', value: url, warning });
    } else {
      expect(plain.stderr).not.toContain('warning');
      expect(JSON.parse(json.stdout)).not.toHaveProperty('warning');
    }
  });

  it('says that --allow-http given to it is not kept, and the next command still refuses without it', async () => {
    const env = { CRAWL_CONFIG_DIR: join(folders.fresh(), 'crawl'), CRAWL_API_KEY: 'crk_' + 'k'.repeat(40) };
    const set = await crawl(['config', 'set', 'base-url', 'http://crawl.internal.example:8080', '--allow-http'], { env });
    expect(set.code).toBe(0);
    expect(set.stderr).toContain(
      'crawl: warning: --allow-http is not kept: each command that sends the API key over plain http:// to crawl.internal.example:8080 needs it, as the key would cross the network in clear; use https:// if the service has it\n',
    );
    expect(set.stderr).not.toContain('commands will refuse');
    const next = await crawl(['job', 'demo-small'], { env });
    expect(next.code).toBe(2);
    expect(next.stderr).toContain('crawl: refusing to send the API key over plain http:// to crawl.internal.example:8080\n');
  });
});

describe('config set key-command <the key itself>', () => {
  it('is refused (exit 2) without showing it, and nothing is stored; a command is taken', async () => {
    const key = 'crk_' + 'Qw7'.repeat(14);
    for (const setting of ['key-command', 'key-store-command']) {
      const env = { CRAWL_CONFIG_DIR: join(folders.fresh(), 'crawl') };
      const r = await crawl(['config', 'set', setting, key], { env });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`crawl: ${setting} takes a command that ${setting === 'key-command' ? 'prints' : 'stores'} the key, not the key itself (what was given looks like one, and is not shown); nothing was stored\n`);
      expect(r.stdout + r.stderr).not.toContain(key.slice(4, 16));
      const list = await crawl(['config', 'list', '--json'], { env });
      expect(JSON.parse(list.stdout)).not.toHaveProperty(setting);
    }
    const env = { CRAWL_CONFIG_DIR: join(folders.fresh(), 'crawl') };
    const ok = await crawl(['config', 'set', 'key-command', 'aws_credential_helper'], { env });
    expect(ok.code, ok.stderr).toBe(0);
  });
});

// `config set`: what it writes (a private 0600 file, atomically), what it refuses, and a
// config file that is not JSON.
import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { runCli } from '../../support/harness.js';
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

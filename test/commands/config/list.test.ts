// `config list`: the value each command of the run would use and where it comes from (flag,
// environment, config file, default), as `auth status` says it; every setting of the table in
// src/config/setting-names.ts that something sets, a secret always masked.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SETTINGS, type SettingSpec } from '../../../src/config/setting-names.js';
import { maskKey } from '../../../src/text/mask.js';
import { crawl, tempDir } from '../../support/harness.js';

const FILE_KEY = 'crk_fileKEY0123456789abcdefghijklmnop';
const ENV_KEY = 'crk_envKEY9876543210zyxwvutsrqponmlk';
let tmp: { dir: string; cleanup: () => void };
let env: Record<string, string>;
beforeAll(() => {
  tmp = tempDir('crawl-config-list-');
  mkdirSync(tmp.dir, { recursive: true });
  writeFileSync(
    join(tmp.dir, 'config.json'),
    JSON.stringify({ profiles: { default: { 'base-url': 'https://file.example/', 'api-key': FILE_KEY }, ci: { 'base-url': 'https://ci.example/' } } }),
    { mode: 0o600 },
  );
  env = { CRAWL_CONFIG_DIR: tmp.dir };
});
afterAll(() => tmp.cleanup());

describe('config list', () => {
  it('in a pipe: name, value, source; the profile first', async () => {
    const r = await crawl(['config', 'list'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`profile\tdefault\tdefault\nbase-url\thttps://file.example/\tconfig\napi-key\t${maskKey(FILE_KEY)}\tconfig\n`);
  });

  it('the environment wins over the file, and the list says so (with what the profile has)', async () => {
    const r = await crawl(['config', 'list'], { env: { ...env, CRAWL_BASE_URL: 'http://127.0.0.1:9/', CRAWL_API_KEY: ` ${ENV_KEY}\n` } });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`profile\tdefault\tdefault\nbase-url\thttp://127.0.0.1:9/\tenv\napi-key\t${maskKey(ENV_KEY)}\tenv\n`);
    expect(r.stdout + r.stderr).not.toContain(ENV_KEY);
    expect(r.stdout + r.stderr).not.toContain(FILE_KEY);
  });

  it('on a terminal: where each comes from, in words', async () => {
    const r = await crawl(['config', 'list', '--profile', 'ci', '--base-url', 'http://127.0.0.1:8/'], { env: { ...env, CRAWL_API_KEY: ENV_KEY }, tty: true, columns: 200 });
    expect(r.code).toBe(0);
    const rows = r.stdout.trimEnd().split('\n');
    expect(rows).toEqual([
      expect.stringMatching(/^profile {2,}ci \(from the --profile flag\)$/),
      expect.stringMatching(/^base-url {2,}http:\/\/127\.0\.0\.1:8\/ \(from the --base-url flag; the profile has https:\/\/ci\.example\/\)$/),
      expect.stringMatching(new RegExp(`^api-key {2,}${maskKey(ENV_KEY).replace(/[*.]/g, '\\$&')} \\(from CRAWL_API_KEY\\)$`)),
    ]);
  });

  it('on a terminal, the default profile and a value from the config file', async () => {
    const r = await crawl(['config', 'list'], { env, tty: true, columns: 200 });
    expect(r.stdout.trimEnd().split('\n').slice(0, 2)).toEqual([
      expect.stringMatching(/^profile {2,}default \(the default\)$/),
      expect.stringMatching(/^base-url {2,}https:\/\/file\.example\/ \(from the config file\)$/),
    ]);
  });

  it('--json: the values, their sources, and what the profile has underneath', async () => {
    const r = await crawl(['config', 'list', '--json'], { env: { ...env, CRAWL_PROFILE: 'default', CRAWL_BASE_URL: 'http://127.0.0.1:9/' } });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      profile: 'default',
      'base-url': 'http://127.0.0.1:9/',
      'api-key': maskKey(FILE_KEY),
      sources: { profile: 'env', 'base-url': 'env', 'api-key': 'config' },
      overridden: { 'base-url': 'https://file.example/' },
    });
  });

  it('every setting of the table is listed when its variable sets it, a secret masked', async () => {
    const specs: readonly SettingSpec[] = SETTINGS;
    const vars = Object.fromEntries(specs.flatMap((s) => (s.env ? [[s.env, s.secret ? ENV_KEY : `value-of-${s.name}`]] : [])));
    const r = await crawl(['config', 'list', '--json', '--profile', 'ci'], { env: { ...env, ...vars } });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as { sources: Record<string, string> } & Record<string, unknown>;
    for (const s of specs) {
      if (!s.env) continue;
      expect(doc.sources[s.name], s.name).toBe('env');
      expect(doc[s.name], s.name).toBe(s.secret ? maskKey(ENV_KEY) : `value-of-${s.name}`);
    }
    expect(r.stdout).not.toContain(ENV_KEY);
  });

  it('nothing set anywhere: the profile alone, and a line on stderr', async () => {
    const empty = tempDir('crawl-config-empty-');
    const r = await crawl(['config', 'list'], { env: { CRAWL_CONFIG_DIR: empty.dir } });
    empty.cleanup();
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('profile\tdefault\tdefault\n');
    expect(r.stderr).toMatch(/^profile "default" has no settings in /);
  });
});

// The config file's place (src/config/paths.ts): where this version keeps it, or where an earlier
// one did when a config is still there, with the notice that says so once.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configFile, locateConfig, movedNotice } from '../../src/config/paths.js';
import { Settings } from '../../src/config/settings.js';
import type { Platform } from '../../src/platform/platform.js';
import { runCli, tempDir } from '../support/harness.js';
import { envOf } from '../support/settings.js';

const windows: Platform = { os: 'win32', home: 'C:\\Users\\ada' };
const env = { APPDATA: 'C:\\Users\\ada\\AppData\\Roaming', HOME: 'H:\\' };
const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe('the config file on Windows', () => {
  it('is in %APPDATA%\\crawl', () => {
    expect(configFile(env, windows)).toBe('C:\\Users\\ada\\AppData\\Roaming\\crawl\\config.json');
    expect(locateConfig(env, windows, () => false)).toEqual({ path: 'C:\\Users\\ada\\AppData\\Roaming\\crawl\\config.json' });
  });

  it('one an earlier version left in ~\\.config\\crawl (by HOME, then the profile) is used while none is in the new place', () => {
    const held = new Set(['C:\\Users\\ada\\.config\\crawl\\config.json']);
    expect(locateConfig(env, windows, (p) => held.has(p))).toEqual({
      path: 'C:\\Users\\ada\\.config\\crawl\\config.json',
      movedTo: 'C:\\Users\\ada\\AppData\\Roaming\\crawl\\config.json',
    });
    held.add('H:\\.config\\crawl\\config.json');
    expect(locateConfig(env, windows, (p) => held.has(p)).path).toBe('H:\\.config\\crawl\\config.json');
    // Once there is one in the new place, that one is read.
    held.add('C:\\Users\\ada\\AppData\\Roaming\\crawl\\config.json');
    expect(locateConfig(env, windows, (p) => held.has(p))).toEqual({ path: 'C:\\Users\\ada\\AppData\\Roaming\\crawl\\config.json' });
  });
});

describe('on Linux and macOS the place is unchanged', () => {
  it.each(['linux', 'darwin'] as const)('%s', (os) => {
    const home = join(tmp.dir, os);
    mkdirSync(join(home, '.config', 'crawl'), { recursive: true });
    writeFileSync(join(home, '.config', 'crawl', 'config.json'), '{}');
    expect(locateConfig({ HOME: home }, { os, home: '/elsewhere' })).toEqual({ path: join(home, '.config', 'crawl', 'config.json') });
    const notices: string[] = [];
    const settings = new Settings({ HOME: home }, {}, { notice: (line) => notices.push(line) }, {}, { os, home: '/elsewhere' });
    expect(settings.store.path).toBe(join(home, '.config', 'crawl', 'config.json'));
    expect(notices).toEqual([]);
  });
});

describe('the notice for a config found in an earlier place', () => {
  it('one line naming both places', () => {
    expect(movedNotice({ path: 'C:\\Users\\ada\\.config\\crawl\\config.json', movedTo: 'C:\\R\\crawl\\config.json' })).toBe(
      'using the config file C:\\Users\\ada\\.config\\crawl\\config.json, where an earlier version kept it; crawl now keeps it at C:\\R\\crawl\\config.json: move it there',
    );
    expect(movedNotice({ path: '/x/config.json' })).toBeUndefined();
  });
});

describe('XDG_CONFIG_HOME', () => {
  let n = 0;
  // The working folder is this process's: a relative XDG_CONFIG_HOME would resolve against it.
  it.concurrent.for(['relative', './relative', 'relative/sub', '.'])('relative (%s) is ignored, as the XDG spec says: ~/.config/crawl, nothing in the working folder', async (xdg, { expect }) => {
    const home = join(tmp.dir, `home-${++n}`);
    mkdirSync(home, { mode: 0o700 });
    const cwd = process.cwd();
    const before = readdirSync(cwd).sort();
    const env = envOf({ HOME: home, XDG_CONFIG_HOME: xdg, CRAWL_CONFIG_DIR: undefined });
    const path = await runCli(['config', 'path'], { env });
    expect(path.stdout).toBe(join(home, '.config', 'crawl', 'config.json') + '\n');
    const set = await runCli(['config', 'set', 'base-url', 'https://a.example'], { env });
    expect(set.code, set.stderr).toBe(0);
    expect(existsSync(resolve(cwd, xdg, 'crawl'))).toBe(false);
    expect(readdirSync(cwd).sort()).toEqual(before);
    expect(JSON.parse(readFileSync(join(home, '.config', 'crawl', 'config.json'), 'utf8')).profiles.default['base-url']).toBe('https://a.example');
  });

  it.concurrent('absolute is used; empty falls back to ~/.config', async ({ expect }) => {
    const home = join(tmp.dir, `home-${++n}`);
    const xdg = join(tmp.dir, `xdg-${n}`);
    const [absolute, empty] = await Promise.all([
      runCli(['config', 'path'], { env: envOf({ HOME: home, XDG_CONFIG_HOME: xdg, CRAWL_CONFIG_DIR: undefined }) }),
      runCli(['config', 'path'], { env: envOf({ HOME: home, XDG_CONFIG_HOME: '', CRAWL_CONFIG_DIR: undefined }) }),
    ]);
    expect(absolute.stdout).toBe(join(xdg, 'crawl', 'config.json') + '\n');
    expect(empty.stdout).toBe(join(home, '.config', 'crawl', 'config.json') + '\n');
  });

});

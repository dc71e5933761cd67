// The config file's place (src/config/paths.ts): where this version keeps it, or where an earlier
// one did when a config is still there, with the notice that says so once.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configFile, locateConfig, movedNotice } from '../../src/config/paths.js';
import { Settings } from '../../src/config/settings.js';
import type { Platform } from '../../src/platform/platform.js';
import { tempDir } from '../support/harness.js';

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

// Where crawl keeps its files on each system (src/platform/folders.ts), for every platform value.
import { describe, expect, it } from 'vitest';
import { configDir, earlierConfigDirs, stateDir } from '../../src/platform/folders.js';
import type { Platform } from '../../src/platform/platform.js';

const windows: Platform = { os: 'win32', home: 'C:\\Users\\ada' };
const mac: Platform = { os: 'darwin', home: '/Users/ada' };
const linux: Platform = { os: 'linux', home: '/home/ada' };

describe('the config folder', () => {
  it('Windows: %APPDATA%\\crawl, whatever HOME says (PowerShell and cmd do not set it; MSYS2 sets its own)', () => {
    const env = { APPDATA: 'C:\\Users\\ada\\AppData\\Roaming', HOME: 'H:\\', USERPROFILE: 'C:\\Users\\ada' };
    expect(configDir(env, windows)).toBe('C:\\Users\\ada\\AppData\\Roaming\\crawl');
    expect(configDir({ ...env, HOME: '/c/Users/ada' }, windows)).toBe('C:\\Users\\ada\\AppData\\Roaming\\crawl');
  });

  it('Windows: the variable is found in any case; without it, the profile\'s AppData\\Roaming', () => {
    expect(configDir({ appdata: 'D:\\Roaming' }, windows)).toBe('D:\\Roaming\\crawl');
    expect(configDir({}, windows)).toBe('C:\\Users\\ada\\AppData\\Roaming\\crawl');
    expect(configDir({ APPDATA: 'relative\\dir' }, windows)).toBe('C:\\Users\\ada\\AppData\\Roaming\\crawl');
  });

  it.each([windows, mac, linux])('%o: CRAWL_CONFIG_DIR, then an absolute XDG_CONFIG_HOME, win everywhere', (platform) => {
    expect(configDir({ CRAWL_CONFIG_DIR: 'X', XDG_CONFIG_HOME: '/xdg', APPDATA: 'C:\\A' }, platform)).toBe('X');
    const xdg = platform.os === 'win32' ? 'C:\\xdg' : '/xdg';
    expect(configDir({ XDG_CONFIG_HOME: xdg, APPDATA: 'C:\\A' }, platform)).toBe(platform.os === 'win32' ? 'C:\\xdg\\crawl' : '/xdg/crawl');
  });

  it('macOS and Linux: ~/.config/crawl (as gh on macOS), HOME first, else the home folder', () => {
    expect(configDir({ HOME: '/Users/other' }, mac)).toBe('/Users/other/.config/crawl');
    expect(configDir({}, mac)).toBe('/Users/ada/.config/crawl');
    expect(configDir({}, linux)).toBe('/home/ada/.config/crawl');
    expect(configDir({ XDG_CONFIG_HOME: 'relative' }, linux)).toBe('/home/ada/.config/crawl');
  });

  it('an earlier version\'s place is looked at on Windows only: ~\\.config\\crawl by HOME and by the profile', () => {
    expect(earlierConfigDirs({ APPDATA: 'C:\\Users\\ada\\AppData\\Roaming', HOME: 'H:\\' }, windows)).toEqual(['H:\\.config\\crawl', 'C:\\Users\\ada\\.config\\crawl']);
    expect(earlierConfigDirs({ APPDATA: 'C:\\R' }, windows)).toEqual(['C:\\Users\\ada\\.config\\crawl']);
    // Chosen by a variable, the folder meant the same to the earlier version.
    expect(earlierConfigDirs({ CRAWL_CONFIG_DIR: 'C:\\c' }, windows)).toEqual([]);
    expect(earlierConfigDirs({ XDG_CONFIG_HOME: 'C:\\x' }, windows)).toEqual([]);
    expect(earlierConfigDirs({ HOME: '/home/other' }, linux)).toEqual([]);
    expect(earlierConfigDirs({}, mac)).toEqual([]);
  });
});

describe('the state folder (recent job ids)', () => {
  it('Windows: %LOCALAPPDATA%\\crawl\\state, else the profile\'s AppData\\Local; never HOME', () => {
    expect(stateDir({ LOCALAPPDATA: 'C:\\Users\\ada\\AppData\\Local', HOME: 'H:\\' }, windows)).toBe('C:\\Users\\ada\\AppData\\Local\\crawl\\state');
    expect(stateDir({ HOME: 'H:\\' }, windows)).toBe('C:\\Users\\ada\\AppData\\Local\\crawl\\state');
    expect(stateDir({ USERPROFILE: 'C:\\Users\\bob' }, { os: 'win32', home: '' })).toBe('C:\\Users\\bob\\AppData\\Local\\crawl\\state');
    expect(stateDir({}, { os: 'win32', home: '' })).toBeUndefined();
  });

  it.each([windows, mac, linux])('%o: an absolute XDG_STATE_HOME wins', (platform) => {
    const xdg = platform.os === 'win32' ? 'C:\\state' : '/state';
    expect(stateDir({ XDG_STATE_HOME: xdg }, platform)).toBe(platform.os === 'win32' ? 'C:\\state\\crawl' : '/state/crawl');
  });

  it('macOS and Linux: ~/.local/state/crawl by HOME, else by the home folder; none when neither is known', () => {
    expect(stateDir({ HOME: '/h' }, linux)).toBe('/h/.local/state/crawl');
    expect(stateDir({}, mac)).toBe('/Users/ada/.local/state/crawl');
    expect(stateDir({ XDG_STATE_HOME: 'rel' }, linux)).toBe('/home/ada/.local/state/crawl');
    expect(stateDir({}, { os: 'linux', home: '' })).toBeUndefined();
  });
});

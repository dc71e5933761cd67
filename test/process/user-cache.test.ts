// The loader's own code cache (src/launch/user-cache.cts): its folder on each system and when it
// is trusted, with the system's facts given (lstat answers made up for Windows' paths). The
// loader is CommonJS that vitest does not transform: the built file is tested (`npm run build`).
import { chmodSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { afterAll, describe, expect, it } from 'vitest';
import type * as UserCache from '../../src/launch/user-cache.cjs';
import type { CacheHost } from '../../src/launch/user-cache.cjs';
import { tempDir } from '../support/harness.js';

const { isPrivate, userCacheDir, writePrivately } = createRequire(import.meta.url)('../../dist/launch/user-cache.cjs') as typeof UserCache;
const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe('the folder', () => {
  const win = { platform: 'win32' as const, home: 'C:\\Users\\ada' };
  it('Windows: %LOCALAPPDATA%\\crawl\\cache, else the profile\'s; HOME is not read', () => {
    expect(userCacheDir({ LOCALAPPDATA: 'C:\\Users\\ada\\AppData\\Local', HOME: 'H:\\' }, win)).toBe('C:\\Users\\ada\\AppData\\Local\\crawl\\cache');
    expect(userCacheDir({ HOME: 'H:\\' }, win)).toBe('C:\\Users\\ada\\AppData\\Local\\crawl\\cache');
    expect(userCacheDir({}, { platform: 'win32', home: '' })).toBeUndefined();
  });
  it.each(['linux', 'darwin', 'win32'] as const)('%s: an absolute XDG_CACHE_HOME wins; a relative one does not', (platform) => {
    const abs = platform === 'win32' ? 'C:\\c' : '/c';
    expect(userCacheDir({ XDG_CACHE_HOME: abs }, { platform, home: '' })).toBe(platform === 'win32' ? 'C:\\c\\crawl' : '/c/crawl');
    expect(userCacheDir({ XDG_CACHE_HOME: 'rel', HOME: '/h' }, { platform, home: '' })).toBe(platform === 'win32' ? undefined : '/h/.cache/crawl');
  });
  it('Linux and macOS: ~/.cache/crawl by HOME, else the home folder', () => {
    expect(userCacheDir({}, { platform: 'darwin', home: '/Users/ada' })).toBe('/Users/ada/.cache/crawl');
    expect(userCacheDir({ HOME: '/h' }, { platform: 'linux', home: '/x' })).toBe('/h/.cache/crawl');
  });
});

describe('trust', () => {
  const stats = (link: boolean): Stats => ({ isSymbolicLink: () => link }) as Stats;
  const windows = (links: Set<string> = new Set()): CacheHost => ({ platform: 'win32', home: 'C:\\Users\\ada', uid: undefined, lstat: (p) => stats(links.has(p)) });

  it('Windows: inside the user\'s profile folder only (any case), and not through a link or junction', () => {
    expect(isPrivate('C:\\Users\\ada\\AppData\\Local\\crawl\\cache\\code-cache\\x.cache', windows())).toBe(true);
    expect(isPrivate('c:\\users\\ADA\\AppData\\Local\\crawl\\cache\\x.cache', windows())).toBe(true);
    // Another folder (a shared XDG_CACHE_HOME), a folder next to the profile, a profile with no home.
    expect(isPrivate('C:\\cache\\crawl\\x.cache', windows())).toBe(false);
    expect(isPrivate('C:\\Users\\ada2\\x\\x.cache', windows())).toBe(false);
    expect(isPrivate('C:\\Users\\ada\\..\\bob\\x.cache', windows())).toBe(false);
    expect(isPrivate('C:\\Users\\ada\\x\\x.cache', { ...windows(), home: '' })).toBe(false);
    const linked = 'C:\\Users\\ada\\AppData\\Local\\crawl\\cache';
    expect(isPrivate(`${linked}\\x.cache`, windows(new Set([linked])))).toBe(false);
  });

  it('POSIX: this user\'s, not writable by others, no link (real files)', () => {
    const host: CacheHost = { platform: 'linux', home: tmp.dir, uid: process.getuid?.(), lstat: (p) => lstatSync(p) };
    const own = join(tmp.dir, 'own');
    mkdirSync(own, { mode: 0o700 });
    expect(isPrivate(own, host)).toBe(true);
    const open = join(tmp.dir, 'open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    expect(isPrivate(open, host)).toBe(false);
    symlinkSync(own, join(tmp.dir, 'link'));
    expect(isPrivate(join(tmp.dir, 'link'), host)).toBe(false);
    expect(isPrivate(own, { ...host, uid: (host.uid ?? 0) + 1 })).toBe(false);
  });
});

describe('writing', () => {
  it('makes the private folder and its missing parents, through a link to a folder, and writes the file whole', () => {
    mkdirSync(join(tmp.dir, 'elsewhere'), { mode: 0o700 });
    symlinkSync(join(tmp.dir, 'elsewhere'), join(tmp.dir, 'cache-link'));
    const path = join(tmp.dir, 'cache-link', 'crawl', 'code-cache', 'x.cache');
    writePrivately(path, Buffer.from('cached'));
    expect(readFileSync(path, 'utf8')).toBe('cached');
    expect(statSync(join(tmp.dir, 'elsewhere', 'crawl')).mode & 0o777).toBe(0o700);
  });
});

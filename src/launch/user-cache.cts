// Where the loader keeps V8's code cache of the bundle (src/launch/load-bundle.cts): a file for each
// build, kind of run and Node version (V8 takes a cache only from its own version and flags). The
// first runs of each kind compile as usual and leave their cache here, and later runs start from
// it. Required by the loader before anything of the bundle compiles.
//
// A code cache is code V8 runs without checking it, so it is read only from a folder of this
// user's that nobody else may write to, and written there with a rename (two runs writing at
// once leave one whole file, never a mix). Any failure (no home, a read-only disk) only means
// no cache: the command runs the same. The folder follows the rule of src/platform/folders.ts
// (which this CommonJS loader cannot import): XDG_CACHE_HOME, else %LOCALAPPDATA% on Windows.
import { closeSync, lstatSync, mkdirSync, openSync, readdirSync, renameSync, statSync, unlinkSync, writeSync, type Stats } from 'node:fs';
import { join, posix, win32 } from 'node:path';
import type * as Os from 'node:os';

/** What the rules below depend on: the process's own facts by default, a test's otherwise. */
export interface CacheHost {
  platform: NodeJS.Platform;
  /** os.homedir(): the user's profile folder on Windows; '' where none is known. */
  home: string;
  /** process.getuid(); undefined on Windows. */
  uid: number | undefined;
  lstat(path: string): Stats;
}

export function thisHost(): CacheHost {
  let home: string | undefined;
  return {
    platform: process.platform,
    // Asked for only where HOME (or XDG_CACHE_HOME) does not say: node:os is not loaded otherwise.
    get home() {
      if (home === undefined) {
        try {
          home = (require('node:os') as typeof Os).homedir();
        } catch {
          home = ''; // No home: no cache.
        }
      }
      return home;
    },
    uid: process.getuid?.(),
    lstat: (path) => lstatSync(path),
  };
}

/** The cache file of one build, kind of run, Node version and architecture. */
export function cacheFileName(build: string, kind: string, version: string, arch: string): string {
  return `${build}-${kind}-${version}-${arch}.cache`;
}

/**
 * `$XDG_CACHE_HOME/crawl`; else `%LOCALAPPDATA%\crawl\cache` on Windows, `~/.cache/crawl`
 * elsewhere (a relative XDG_CACHE_HOME or LOCALAPPDATA is ignored, as the XDG spec says).
 */
export function userCacheDir(env: NodeJS.ProcessEnv, host: Pick<CacheHost, 'platform' | 'home'> = thisHost()): string | undefined {
  const path = host.platform === 'win32' ? win32 : posix;
  if (env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME)) return path.join(env.XDG_CACHE_HOME, 'crawl');
  if (host.platform === 'win32') {
    const local = env.LOCALAPPDATA && path.isAbsolute(env.LOCALAPPDATA) ? env.LOCALAPPDATA : host.home ? path.join(host.home, 'AppData', 'Local') : undefined;
    return local === undefined ? undefined : path.join(local, 'crawl', 'cache');
  }
  const home = env.HOME || host.home;
  return home ? path.join(home, '.cache', 'crawl') : undefined;
}

/**
 * Whether a file (or folder) may be trusted as this user's own. Where there are user ids: owned
 * by this user, not a symlink, and neither it nor its folder writable by group or others. On
 * Windows, where Node shows neither owners nor ACLs: inside the user's profile folder (which
 * Windows gives only the user, SYSTEM and administrators), and neither it nor its folder a link
 * or junction that could lead out of it.
 */
export function isPrivate(path: string, host: CacheHost = thisHost()): boolean {
  const paths = host.platform === 'win32' ? win32 : posix;
  const folder = paths.dirname(path);
  try {
    if (host.platform === 'win32') {
      if (!insideFolder(paths.resolve(path), host.home)) return false;
      return [path, folder].every((p) => !host.lstat(p).isSymbolicLink());
    }
    if (host.uid === undefined) return false;
    for (const p of [path, folder]) {
      const stat = host.lstat(p);
      if (stat.uid !== host.uid || (stat.mode & 0o022) !== 0 || stat.isSymbolicLink()) return false;
    }
    return true;
  } catch {
    return false;
  }
}

/** Whether a Windows path lies inside `folder` (paths there are case-insensitive). */
function insideFolder(path: string, folder: string): boolean {
  if (folder === '') return false;
  const base = win32.resolve(folder).toLowerCase().replace(/\\+$/, '');
  return path.toLowerCase().startsWith(base + '\\');
}

/**
 * A private folder and its missing parents, one at a time, as src/platform/make-folders.ts makes
 * them (this layer imports nothing of src/): Node's recursive mkdir loops for ever, at full CPU and
 * deaf to SIGTERM, where a file system answers ENOENT for a folder whose parent exists (/proc).
 */
function makeFolders(path: string): void {
  try {
    mkdirSync(path, { mode: 0o700 });
    return;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' && statSync(path, { throwIfNoEntry: false })?.isDirectory() === true) return;
    if (code !== 'ENOENT' || join(path, '..') === path) throw error;
    makeFolders(join(path, '..'));
  }
  mkdirSync(path, { mode: 0o700 });
}

/** Writes `data` to `path` in a private folder, whole or not at all. */
export function writePrivately(path: string, data: Buffer, host: CacheHost = thisHost()): void {
  const dir = join(path, '..');
  try {
    makeFolders(dir);
    if (!isPrivate(dir, host)) return;
    const temp = `${path}.${process.pid}.tmp`;
    const fd = openSync(temp, 'w', 0o600);
    try {
      writeSync(fd, data);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch {
    // No cache this time; the command's own work is done already.
  }
}

/**
 * Writes a code cache of `build`, and removes the caches other builds left in its folder: every
 * build (an upgrade, a rebuild in a checkout) makes new ones, and the old would pile up unread.
 * Two builds run by turns (two installs of different versions) each rewrite their own: speed only.
 */
export function writeCodeCache(path: string, build: string, data: Buffer): void {
  writePrivately(path, data);
  const dir = join(path, '..');
  try {
    if (!isPrivate(dir)) return;
    for (const name of readdirSync(dir)) {
      if (name.endsWith('.cache') && !name.startsWith(`${build}-`)) unlinkSync(join(dir, name));
    }
  } catch {
    // What is left is only disk space.
  }
}

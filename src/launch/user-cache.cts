// Where the loader keeps V8's code cache of the bundle (src/launch/load-bundle.cts): a file for each
// build, kind of run and Node version (V8 takes a cache only from its own version and flags). The
// first runs of each kind compile as usual and leave their cache here, and later runs start from
// it. Required by the loader before anything of the bundle compiles.
//
// A code cache is code V8 runs without checking it, so it is read only from a folder of this
// user's that nobody else may write to, and written there with a rename (two runs writing at
// once leave one whole file, never a mix). Any failure (no home, a read-only disk) only means
// no cache: the command runs the same.
import { closeSync, lstatSync, mkdirSync, openSync, readdirSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/** `$XDG_CACHE_HOME/crawl`, else `~/.cache/crawl` (a relative XDG_CACHE_HOME is ignored, as the XDG spec says). */
export function userCacheDir(env: NodeJS.ProcessEnv): string | undefined {
  if (env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME)) return join(env.XDG_CACHE_HOME, 'crawl');
  const home = env.HOME || homedir();
  return home ? join(home, '.cache', 'crawl') : undefined;
}

/** The cache file of one build, kind of run, Node version and architecture. */
export function cacheFileName(build: string, kind: string, version: string, arch: string): string {
  return `${build}-${kind}-${version}-${arch}.cache`;
}

/**
 * Whether a file (or folder) may be trusted as this user's own: owned by this user, and neither
 * it nor its folder writable by group or others. Where Node knows no user ids (Windows), the
 * folder in the user's profile is trusted.
 */
export function isPrivate(path: string): boolean {
  const uid = process.getuid?.();
  try {
    for (const p of [path, join(path, '..')]) {
      const stat = lstatSync(p);
      if (uid !== undefined && (stat.uid !== uid || (stat.mode & 0o022) !== 0 || stat.isSymbolicLink())) return false;
    }
    return true;
  } catch {
    return false;
  }
}

/** Writes `data` to `path` in a private folder, whole or not at all. */
export function writePrivately(path: string, data: Buffer): void {
  const dir = join(path, '..');
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!isPrivate(dir)) return;
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

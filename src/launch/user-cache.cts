// Where the loader keeps a code cache of its own when the build's does not fit this Node: a
// package built on one Node version and run on another (V8 takes a cache only from its own
// version and flags). The first runs of each kind of command then compile as usual and leave
// their cache here, and later runs start as fast as with the build's. Required only then.
//
// A code cache is code V8 runs without checking it, so it is read only from a folder of this
// user's that nobody else may write to, and written there with a rename (two runs writing at
// once leave one whole file, never a mix). Any failure (no home, a read-only disk) only means
// no cache: the command runs the same.
import { closeSync, lstatSync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/** `$XDG_CACHE_HOME/crawl`, else `~/.cache/crawl` (a relative XDG_CACHE_HOME is ignored, as the XDG spec says). */
export function userCacheDir(env: NodeJS.ProcessEnv): string | undefined {
  if (env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME)) return join(env.XDG_CACHE_HOME, 'crawl');
  const home = env.HOME || homedir();
  return home ? join(home, '.cache', 'crawl') : undefined;
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

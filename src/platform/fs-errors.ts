import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Every local I/O failure crawl names, in the same words wherever it happens (config, key files, output). */
const REASONS: Readonly<Record<string, string>> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EFBIG: 'file too large',
  ENOENT: 'no such file or folder',
  ENOTDIR: 'a part of the path is not a folder',
  EISDIR: 'it is a folder',
  EEXIST: 'it already exists',
  EIO: 'input/output error',
  EPIPE: 'the reader closed it',
  ENXIO: 'no such device or address (a socket cannot be opened as a file)',
  ERR_STREAM_DESTROYED: 'it is closed',
};

/** A local I/O failure in a few words and its code (`permission denied (EACCES)`); the code or message alone when it is not a common one. */
export function describeFsError(error: unknown): string {
  const e = error as NodeJS.ErrnoException | undefined;
  const code = typeof e?.code === 'string' ? e.code : undefined;
  const reason = code === undefined ? undefined : REASONS[code];
  if (reason !== undefined) return `${reason} (${code})`;
  return code ?? (e instanceof Error ? e.message : String(error));
}

/** The first folder on the way to `path` that exists but is not a folder (a file in its place), if any. */
export function notAFolder(path: string): string | undefined {
  const ancestors: string[] = [];
  for (let dir = dirname(resolve(path)); ; dir = dirname(dir)) {
    ancestors.unshift(dir);
    if (dirname(dir) === dir) break;
  }
  for (const dir of ancestors) {
    const stats = statSync(dir, { throwIfNoEntry: false });
    if (stats === undefined) return undefined;
    if (!stats.isDirectory()) return dir;
  }
  return undefined;
}

import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** A local file-system failure in a few words (the code itself when it is not a common one). */
export function describeFsError(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  switch (e?.code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'read-only file system';
    case 'ENOSPC':
      return 'no space left on device';
    case 'EDQUOT':
      return 'disk quota exceeded';
    case 'ENOENT':
      return 'no such file or directory';
    case 'ENOTDIR':
      return 'a part of the path is not a folder';
    case 'EISDIR':
      return 'it is a folder';
    case 'EEXIST':
      return 'it already exists';
    case 'EIO':
      return 'input/output error';
    default:
      return e?.code ?? (e instanceof Error ? e.message : String(error));
  }
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

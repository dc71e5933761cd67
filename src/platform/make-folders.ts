// A folder and whichever of its parents are missing, made one at a time. Node's own recursive
// mkdir never returns where a file system answers ENOENT for a new folder whose parent exists
// (/proc, /sys): it makes the parent again and retries, for ever, at full CPU and deaf to SIGTERM.
// Here a second ENOENT, once the parent is known to be there, is the answer.
import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/** Makes `path` (mode `mode`, as each missing parent), unless it is a folder already; throws the file system's error otherwise. */
export function makeFolders(path: string, mode: number): void {
  try {
    mkdirSync(path, { mode });
    return;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' && isFolder(path)) return;
    if (code !== 'ENOENT') throw error;
    const parent = dirname(path);
    if (parent === path) throw error;
    makeFolders(parent, mode);
  }
  mkdirSync(path, { mode });
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

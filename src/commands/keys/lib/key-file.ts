import { lstatSync, promises as fsp, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { describeFsError } from '../../../platform/fs-errors.js';
import { CrawlError, UsageError } from '../../../errors.js';
import { ExitCode } from '../../../exit-codes.js';

/** `--output-file -`: standard output, never a file of that name. */
export const STDOUT_PATH = '-';

/**
 * Checked before a key is created: once the service has made it, a file that cannot be written
 * leaves the key on stdout only. A key file is always new, so nothing is ever overwritten.
 */
export function checkNewKeyFile(path: string, flag = '--output-file'): void {
  if (path.trim() === '') throw new UsageError(`${flag} needs a path`);
  if (path === STDOUT_PATH) throw new UsageError(`${flag} - means standard output, not a file`);
  let exists = true;
  try {
    lstatSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') throw new UsageError(`cannot use ${path} for ${flag}: ${describeFsError(error)}`);
    exists = false;
  }
  if (exists) {
    throw new UsageError(`${path} already exists; ${flag} only creates a new file`, 'choose another path, or move the old file away first');
  }
  const folder = dirname(resolve(path));
  let isFolder: boolean;
  try {
    isFolder = statSync(folder).isDirectory();
  } catch {
    isFolder = false;
  }
  if (!isFolder) throw new UsageError(`cannot create ${path}: the folder ${folder} does not exist`);
}

/**
 * Creates the file with O_EXCL ('wx'), so a file that appeared since the check is not replaced,
 * and with mode 0600 from the first byte. A half-written file is removed: a truncated key is worse
 * than none, and the caller still holds the key.
 */
export async function writeKeyFile(path: string, key: string): Promise<void> {
  // `-` is standard output: callers hand the key over there instead; no file of that name is made.
  if (path === STDOUT_PATH) throw new CrawlError(`cannot write the key to a file named "-": it means standard output`, ExitCode.failure);
  let handle: fsp.FileHandle | undefined;
  try {
    handle = await fsp.open(path, 'wx', 0o600);
    await handle.writeFile(key + '\n');
    await handle.close();
    handle = undefined;
  } catch (error) {
    if (handle) {
      await handle.close().catch(() => undefined);
      await fsp.unlink(path).catch(() => undefined);
    }
    throw new CrawlError(`cannot write the key to ${path}: ${describeFsError(error)}`, ExitCode.failure);
  }
}

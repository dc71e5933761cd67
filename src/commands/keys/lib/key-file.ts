import { lstatSync, promises as fsp, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Env } from '../../../platform/env.js';
import { restrictToUser, type Spawn } from '../../../platform/file-acl.js';
import { describeFsError } from '../../../platform/fs-errors.js';
import type { Platform } from '../../../platform/platform.js';
import { CrawlError, UsageError } from '../../../errors.js';
import { ExitCode } from '../../../exit-codes.js';
import { makeFolders } from '../../../platform/make-folders.js';

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

/** The system the file is written on (Windows: its ACL is set too); this run's, from Deps. */
export interface KeyFileSystem {
  platform: Pick<Platform, 'os'>;
  env: Env;
  spawn?: Spawn;
}

/**
 * Creates the file with O_EXCL ('wx'), so a file that appeared since the check is not replaced,
 * and with mode 0600 from the first byte; on Windows, made the user's alone (file-acl.ts) before
 * the key goes in, or not used at all. A half-written file is removed: a truncated key is worse
 * than none, and the caller still holds the key.
 */
export async function writeKeyFile(path: string, key: string, system?: KeyFileSystem): Promise<void> {
  // `-` is standard output: callers hand the key over there instead; no file of that name is made.
  if (path === STDOUT_PATH) throw new CrawlError(`cannot write the key to a file named "-": it means standard output`, ExitCode.failure);
  let handle: fsp.FileHandle | undefined;
  try {
    handle = await fsp.open(path, 'wx', 0o600);
    if (system !== undefined) await restrictToUser(path, system);
    await handle.writeFile(key + '\n');
    await handle.close();
    handle = undefined;
  } catch (error) {
    if (handle) {
      await handle.close().catch(() => undefined);
      await fsp.unlink(path).catch(() => undefined);
    }
    const why = (error as NodeJS.ErrnoException).code === undefined && error instanceof Error ? error.message : describeFsError(error);
    throw new CrawlError(`cannot write the key to ${path}: ${why}`, ExitCode.failure, { cause: error });
  }
}

/**
 * A key that could neither be stored nor revoked, kept where its owner can reach it: a new 0600
 * file in `folder` (made 0700 if missing). Returns the file's path.
 */
export async function rescueKeyFile(folder: string, label: string, key: string, now: number, system?: KeyFileSystem): Promise<string> {
  makeFolders(folder, 0o700);
  const stamp = new Date(now).toISOString().replace(/[:.]/g, '-');
  const safe = label.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 40);
  for (let n = 0; ; n++) {
    const path = join(folder, `unrevoked-key-${safe}-${stamp}${n === 0 ? '' : `-${n}`}.txt`);
    try {
      await writeKeyFile(path, key, system);
      return path;
    } catch (error) {
      // Only a name taken by another rescue is worth another try.
      const taken = error instanceof CrawlError && (error.cause as NodeJS.ErrnoException | undefined)?.code === 'EEXIST';
      if (n >= 9 || !taken) throw error;
    }
  }
}

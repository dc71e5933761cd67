// Where the tests' scratch folders go (tempDir in test/support/harness.ts, and whatever else asks
// os.tmpdir()): a RAM-backed file system when the machine has one with room to spare, else the
// usual temporary folder. Every in-process run writes config files (each fsync'd and renamed into
// place) and every fixture makes and removes folders: on a disk each of those waits on the
// file system's journal, on tmpfs it does not. Semantics (modes, renames, locks) are the same.
// CRAWL_TEST_TMPDIR names another folder, or `os` for the system's own.
import { accessSync, constants, statfsSync } from 'node:fs';

const TMPFS_MAGIC = 0x01021994;
/** Room enough for the largest bodies and exports the tests write, several at once. */
const MIN_FREE_BYTES = 2 * 1024 ** 3;

function ramFolder(): string | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    accessSync('/dev/shm', constants.W_OK | constants.X_OK);
    const fs = statfsSync('/dev/shm');
    return fs.type === TMPFS_MAGIC && fs.bavail * fs.bsize >= MIN_FREE_BYTES ? '/dev/shm' : undefined;
  } catch {
    return undefined;
  }
}

const chosen = process.env.CRAWL_TEST_TMPDIR;
if (chosen !== 'os') {
  const folder = chosen ?? ramFolder();
  if (folder !== undefined) process.env.TMPDIR = folder;
}

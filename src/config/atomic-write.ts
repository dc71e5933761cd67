import { closeSync, fsyncSync, openSync, realpathSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';

/**
 * Replaces `path` with `text` so that a reader, a crash or a full disk never leaves half a file:
 * a new temp file beside it (created with `mode`, so a secret is never readable by others, even
 * for a moment), flushed to disk, then renamed over the old one. On failure the temp file is
 * removed and the old file is untouched. A symlink (a config kept in a dotfiles repo) stays a
 * symlink: its target is what gets replaced.
 */
export function writeFileAtomic(link: string, text: string, mode: number): void {
  const path = resolveLink(link);
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  let fd: number | undefined;
  try {
    fd = openSync(temp, 'wx', mode);
    const data = Buffer.from(text, 'utf8');
    let offset = 0;
    while (offset < data.length) offset += writeSync(fd, data, offset, data.length - offset);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(temp, path);
  } catch (error) {
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {
        // Already failing: the write's own error is the one to report.
      }
    }
    try {
      unlinkSync(temp);
    } catch {
      // Never created, or already renamed.
    }
    throw error;
  }
  syncFolder(dirname(path));
}

/** Makes the rename itself durable; not every file system lets a folder be opened for that. */
function syncFolder(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Best effort.
  }
}

function resolveLink(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

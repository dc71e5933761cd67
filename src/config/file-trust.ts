import { lstatSync, realpathSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { currentUid } from '../platform/host.js';
import { CrawlError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { shellQuote } from '../text/shell.js';

/**
 * As ssh does with its own files: settings (a key, the URL it is sent to) are taken only from a
 * config file that no one else can change. Another user who can write the file, or replace it
 * through its folder, could point the key at their own server or swap in their own key.
 */

export interface Ownership {
  mode: number;
  uid: number;
}

export type Distrust = { reason: 'writable'; mode: number } | { reason: 'owner'; mode: number; uid: number };

/**
 * Why others could change a file or folder: owned by someone other than `myUid` or root, or
 * writable by its group or by everyone. A sticky folder (like /tmp) is fine: others may add files
 * there, but not rename or remove ours.
 */
export function distrust(stats: Ownership, kind: 'file' | 'folder', myUid: number): Distrust | undefined {
  const mode = stats.mode & 0o7777;
  if (stats.uid !== myUid && stats.uid !== 0) return { reason: 'owner', mode, uid: stats.uid };
  if ((mode & 0o022) === 0) return undefined;
  if (kind === 'folder' && (mode & 0o1000) !== 0) return undefined;
  return { reason: 'writable', mode };
}

/** Refuses the config file (stats of the file as opened) if others could change it. */
export function checkFileTrusted(path: string, stats: Ownership): void {
  const uid = currentUid();
  if (uid === undefined) return;
  const problem = distrust(stats, 'file', uid);
  if (problem) throw untrusted(path, path, 'file', problem, uid);
}

/**
 * Refuses the config file if others could replace it through its folder: the folder the path
 * names and, for a symlink (a config kept in a dotfiles repo), the folder of its target too.
 */
export function checkFoldersTrusted(path: string): void {
  const uid = currentUid();
  if (uid === undefined) return;
  for (const folder of foldersOf(path)) {
    const stats = statSync(folder, { throwIfNoEntry: false });
    if (stats === undefined) continue;
    const problem = distrust(stats, 'folder', uid);
    if (problem) throw untrusted(path, folder, 'folder', problem, uid);
  }
}

function foldersOf(path: string): string[] {
  const folders = [dirname(path)];
  try {
    if (lstatSync(path).isSymbolicLink()) {
      const target = dirname(realpathSync(path));
      if (!folders.includes(target)) folders.push(target);
    }
  } catch {
    // No file (yet), or a dangling link: reading it fails on its own terms.
  }
  return folders;
}

function untrusted(file: string, culprit: string, kind: 'file' | 'folder', problem: Distrust, uid: number): CrawlError {
  const mode = problem.mode.toString(8).padStart(4, '0');
  const subject = kind === 'file' ? 'it' : `its folder ${culprit}`;
  const sudo = uid === 0 ? '' : 'sudo ';
  if (problem.reason === 'owner') {
    return new CrawlError(
      `refusing to use config file ${file}: ${subject} is owned by another user (uid ${problem.uid}, mode ${mode})`,
      ExitCode.failure,
      { hint: `make it yours with \`${sudo}chown ${uid} ${shellQuote(culprit)}\`, or set CRAWL_CONFIG_DIR to a folder of your own` },
    );
  }
  const fix = kind === 'file' ? `chmod 600 ${shellQuote(culprit)}` : `chmod go-w ${shellQuote(culprit)}`;
  return new CrawlError(`refusing to use config file ${file}: ${subject} is writable by other users (mode ${mode})`, ExitCode.failure, {
    hint: `only you should be able to change it: \`${fix}\``,
  });
}

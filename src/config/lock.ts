import { closeSync, constants, fstatSync, linkSync, lstatSync, openSync, readSync, realpathSync, renameSync, unlinkSync, writeSync, type Stats } from 'node:fs';
import { hostname } from 'node:os';
import { isProcessRunning, processId } from '../platform/host.js';
import { basename, dirname, join, resolve } from 'node:path';
import { CrawlError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { realClock, type Clock } from '../platform/clock.js';
import { shellQuote } from '../text/shell.js';

// How long a lock may sit before it counts as abandoned, and how long a writer waits for one.
// A write holds the lock for milliseconds, so every bound below is far above a real write.
//
// Waiting must outlast staleness: a waiter that gave up before a lock turned stale would report
// "being written by another crawl process" about a process that is gone, and no one would ever
// take the lock over. With WAIT_MS above STALE_MS plus a poll, a waiter facing any lock it cannot
// ask about (written on another machine, or empty) always sees it turn stale and takes it over;
// giving up then means a holder this machine sees running, which is never robbed (taking a lock
// from a live writer is what lets two writers in).

/** A lock written on another machine (a shared folder): its holder cannot be asked whether it runs. */
const STALE_MS = 3_000;
/** Empty or garbled: a live writer fills its lock in the same instant it creates it. */
const UNREADABLE_STALE_MS = 1_000;
/** Longer than STALE_MS by more than a poll, and short enough that a stuck holder is named soon. */
const WAIT_MS = 5_000;
const POLL_MS = 20;
/** Waits shorter than this go unmentioned. */
const QUIET_MS = 300;
/** A lock crawl wrote is one short JSON line; more than this is not read, just judged by age. */
const MAX_LOCK_BYTES = 4096;

/** What sits at a lock's path, as read (see readLockFile). */
export interface LockFile {
  text: string;
  ino: number;
  mtimeMs: number;
}

/**
 * The file-system calls a takeover race is made of. The default is node:fs; a test passes one
 * that pauses a claimant between two of them while another claimant runs.
 */
export interface LockFs {
  /** Creates `path` exclusively (O_EXCL, 0600) holding `text`; false when something is already there. */
  create(path: string, text: string): Promise<boolean>;
  /** The lock file at `path`, read without trusting it; undefined when nothing is there. */
  read(path: string): Promise<LockFile | undefined>;
  /** Fails with ENOENT when `from` is gone: of two renames of one file, only one succeeds. */
  rename(from: string, to: string): Promise<void>;
  /** Fails with EEXIST when `path` exists: puts a file back without replacing a newer one. */
  link(existing: string, path: string): Promise<void>;
  unlink(path: string): Promise<void>;
}

export const nodeLockFs: LockFs = {
  async create(path, text) {
    let fd: number;
    try {
      fd = openSync(path, 'wx', 0o600);
    } catch (error) {
      if (codeOf(error) === 'EEXIST') return false;
      throw error;
    }
    try {
      writeSync(fd, text);
    } finally {
      closeSync(fd);
    }
    return true;
  },
  async read(path) {
    return readLockFile(path);
  },
  async rename(from, to) {
    renameSync(from, to);
  },
  async link(existing, path) {
    linkSync(existing, path);
  },
  async unlink(path) {
    unlinkSync(path);
  },
};

export interface LockOptions {
  /** Every wait goes through it: the polls, the staleness of a lock, the give-up. */
  clock?: Pick<Clock, 'now' | 'sleep'>;
  /** One line for the user (stderr) once a wait is long enough to notice. */
  notice?: (line: string) => void;
  /** Ends a wait early (the sleep rejects with its reason). */
  signal?: AbortSignal;
  fs?: LockFs;
}

interface Holder {
  pid: number;
  host: string;
  token: string;
  ageMs: number;
  /** With the token, tells the lock that was judged from a newer one at the same path. */
  ino: number;
  mtimeMs: number;
}

/**
 * `config.json.lock`, created exclusively (O_EXCL) by the process about to rewrite the config, so
 * two crawl processes writing at once take turns instead of one silently undoing the other. A lock
 * left by a process that no longer runs (killed mid-write) is taken over: claimed by renaming it to
 * a name only this process uses, which only one claimant can do, then removed if it is still the
 * lock that was judged stale.
 */
export class ConfigLock {
  readonly #path: string;
  readonly #token: string;
  readonly #fs: LockFs;

  private constructor(path: string, token: string, fs: LockFs) {
    this.#path = path;
    this.#token = token;
    this.#fs = fs;
  }

  static async acquire(configPath: string, options: LockOptions = {}): Promise<ConfigLock> {
    const clock = options.clock ?? realClock;
    const fs = options.fs ?? nodeLockFs;
    const path = lockPathFor(configPath);
    // Loaded here, not at start-up: node:crypto is ~20 modules, and only config writes need it.
    const { randomBytes } = await import('node:crypto');
    const token = randomBytes(8).toString('hex');
    const content = JSON.stringify({ pid: processId(), host: hostname(), token }) + '\n';
    const started = clock.now();
    let told = false;
    for (;;) {
      if (await fs.create(path, content)) return new ConfigLock(path, token, fs);
      const holder = await readHolder(fs, path, clock.now());
      if (holder === undefined) continue; // released in between
      if (isStale(holder)) {
        // Removed, or already gone: the path is free to be created. Otherwise the lock there was
        // someone's fresh one, now put back, and is waited for like any other.
        if ((await claimStale(fs, path, token, holder, configPath)) === 'restored') await clock.sleep(POLL_MS, options.signal);
        continue;
      }
      const waited = clock.now() - started;
      if (waited >= WAIT_MS) {
        throw new CrawlError(`the config file ${configPath} is being written by another crawl process (pid ${holder.pid}); nothing was changed`, ExitCode.failure, {
          hint: `try again; if no crawl is running, remove ${path}`,
        });
      }
      if (!told && waited >= QUIET_MS) {
        told = true;
        options.notice?.(`waiting for another crawl process (pid ${holder.pid}) to finish writing ${configPath}`);
      }
      await clock.sleep(POLL_MS, options.signal);
    }
  }

  /**
   * Removes the lock, unless it was taken over meanwhile (then it is someone else's and stays).
   * Moved to a private name before its token is checked: a check then unlink of the path would
   * delete a lock someone created between the two. Never throws: it runs after the write, in a
   * `finally` whose own error must not hide the write's.
   */
  async release(): Promise<void> {
    const fs = this.#fs;
    const mine = `${this.#path}.${this.#token}`;
    try {
      await fs.rename(this.#path, mine);
    } catch {
      return; // gone: taken over and released by another process
    }
    let ours = false;
    try {
      ours = (await readHolder(fs, mine, 0))?.token === this.#token;
    } catch {
      // Not readable as a lock: not ours, so put back like any other.
    }
    // Put back if another process's: if a newer lock took the path meanwhile, that one stands.
    if (!ours) await putBack(fs, mine, this.#path).catch(() => false);
    await fs.unlink(mine).catch(() => undefined);
  }
}

/**
 * The lock's file, by the config file's real path: two symlinks to one config take one lock, the
 * one beside the file that is written. A config that does not exist yet (or a dangling link, which
 * the writer replaces by the file) is written where its path points, so the lock goes beside that.
 */
export function lockPathFor(configPath: string): string {
  try {
    return `${realpathSync(configPath)}.lock`;
  } catch {
    const absolute = resolve(configPath);
    let folder = dirname(absolute);
    try {
      folder = realpathSync(folder);
    } catch {
      // A folder that does not exist: the write will fail and say so; the name is kept as given.
    }
    return `${join(folder, basename(absolute))}.lock`;
  }
}

type ClaimOutcome = 'removed' | 'gone' | 'restored';

/**
 * Takes a lock judged stale out of the way. The rename is the claim: only one claimant moves the
 * file. What was moved may not be what was judged (between the read and the rename another
 * claimant removed it and created a fresh lock): then it is put back, untouched.
 */
async function claimStale(fs: LockFs, path: string, token: string, judged: Holder, configPath: string): Promise<ClaimOutcome> {
  const claimed = `${path}.${token}`;
  try {
    await fs.rename(path, claimed);
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return 'gone';
    throw error;
  }
  const got = await readHolder(fs, claimed, 0);
  if (got === undefined) return 'gone';
  if (got.token === judged.token && got.ino === judged.ino && got.mtimeMs === judged.mtimeMs) {
    await fs.unlink(claimed).catch(ignoreGone);
    return 'removed';
  }
  let restored: boolean;
  try {
    restored = await putBack(fs, claimed, path);
  } finally {
    // Put back under the lock's name, or superseded: either way this name is not left behind.
    await fs.unlink(claimed).catch(ignoreGone);
  }
  if (!restored) {
    // A newer lock took the path while the one moved was away: the process that held the moved
    // one may be writing, and so may the newer one's. This process stays out of it.
    throw new CrawlError(`the config file ${configPath} is busy: other crawl processes are taking turns writing it; nothing was changed`, ExitCode.failure, {
      hint: 'try again',
    });
  }
  return 'restored';
}

/**
 * Puts a moved lock back at its path without replacing one created meanwhile; false if there is
 * one. A file system without hard links gets a copy, created exclusively all the same.
 */
async function putBack(fs: LockFs, moved: string, path: string): Promise<boolean> {
  try {
    await fs.link(moved, path);
    return true;
  } catch (error) {
    if (codeOf(error) === 'EEXIST') return false;
    const file = await fs.read(moved);
    if (file === undefined) throw error;
    return fs.create(path, file.text);
  }
}

function ignoreGone(error: unknown): void {
  if (codeOf(error) !== 'ENOENT') throw error;
}

async function readHolder(fs: LockFs, path: string, now: number): Promise<Holder | undefined> {
  const file = await fs.read(path);
  if (file === undefined) return undefined;
  const { text, ino, mtimeMs } = file;
  const ageMs = now - mtimeMs;
  try {
    const parsed = JSON.parse(text) as Partial<Holder>;
    return {
      // Anything but a real pid reads as none: such a lock is judged by its age, as garbage is.
      pid: Number.isSafeInteger(parsed.pid) && (parsed.pid as number) > 0 ? (parsed.pid as number) : 0,
      host: typeof parsed.host === 'string' ? parsed.host : '',
      token: typeof parsed.token === 'string' ? parsed.token : text,
      ageMs,
      ino,
      mtimeMs,
    };
  } catch {
    // Being written this very moment, or garbage: judged by its age alone.
    return { pid: 0, host: '', token: text, ageMs, ino, mtimeMs };
  }
}

/**
 * Reads what sits at the lock's path without trusting it: never through a symlink (one to
 * /dev/zero would be read forever), never blocking (a FIFO would wait for a writer beyond
 * Ctrl-C), and only a few bytes. Anything but a regular file was not made by crawl: refused.
 */
function readLockFile(path: string): LockFile | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = codeOf(error);
    if (code === 'ENOENT') return undefined;
    // O_NOFOLLOW answers ELOOP (EMLINK on some BSDs) for a symlink.
    if (code === 'ELOOP' || code === 'EMLINK') {
      const stats = lstatSync(path, { throwIfNoEntry: false });
      if (stats === undefined) return undefined;
      if (stats.isSymbolicLink()) throw notALock(path, 'a symbolic link');
    }
    throw error;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw notALock(path, kindOf(stats));
    const buffer = Buffer.alloc(MAX_LOCK_BYTES);
    const length = readSync(fd, buffer, 0, MAX_LOCK_BYTES, 0);
    return { text: buffer.subarray(0, length).toString('utf8'), ino: stats.ino, mtimeMs: stats.mtimeMs };
  } finally {
    closeSync(fd);
  }
}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a folder';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  return 'something other than a file';
}

function notALock(path: string, kind: string): CrawlError {
  const remove = kind === 'a folder' ? `rm -r ${shellQuote(path)}` : `rm ${shellQuote(path)}`;
  return new CrawlError(`the config lock ${path} is ${kind}, not a lock file crawl made; nothing was changed`, ExitCode.failure, {
    hint: `remove it (\`${remove}\`) and try again`,
  });
}

function isStale(holder: Holder): boolean {
  // A live writer fills the lock in the same instant it creates it: an empty or garbled one that
  // has stayed so was left by a process killed in between.
  if (holder.pid === 0) return holder.ageMs > UNREADABLE_STALE_MS;
  // A pid means something only on the machine that wrote it (the folder may be shared).
  if (holder.host !== hostname()) return holder.ageMs > STALE_MS;
  return !isProcessRunning(holder.pid);
}

function codeOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

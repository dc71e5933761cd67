import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, unlinkSync, writeSync, type Stats } from 'node:fs';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { CrawlError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { shellQuote } from '../text/shell.js';

/** A write holds the lock for milliseconds; this long means the holder is stuck (or stopped). */
const WAIT_MS = 5_000;
/** A lock this old was left by a process that died without removing it. */
const STALE_MS = 10_000;
const POLL_MS = 20;
const UNREADABLE_STALE_MS = 1_000;
/** A lock crawl wrote is one short JSON line; more than this is not read, just judged by age. */
const MAX_LOCK_BYTES = 4096;
/** Waits shorter than this go unmentioned. */
const QUIET_MS = 300;

interface Holder {
  pid: number;
  host: string;
  token: string;
  ageMs: number;
}

/**
 * `config.json.lock`, created exclusively (O_EXCL) by the process about to rewrite the config, so
 * two crawl processes writing at once take turns instead of one silently undoing the other. A lock
 * left by a process that no longer runs (killed mid-write) is taken over.
 */
export class ConfigLock {
  readonly #path: string;
  readonly #token: string;

  private constructor(path: string, token: string) {
    this.#path = path;
    this.#token = token;
  }

  static async acquire(configPath: string, notice?: (line: string) => void): Promise<ConfigLock> {
    const path = `${configPath}.lock`;
    // Loaded here, not at start-up: node:crypto is ~20 modules, and only config writes need it.
    const { randomBytes } = await import('node:crypto');
    const token = randomBytes(8).toString('hex');
    const started = Date.now();
    let told = false;
    for (;;) {
      if (tryCreate(path, token)) return new ConfigLock(path, token);
      const holder = readHolder(path);
      if (holder === undefined) continue; // released in between
      if (isStale(holder)) {
        removeIfStill(path, holder.token);
        continue;
      }
      const waited = Date.now() - started;
      if (waited >= WAIT_MS) {
        throw new CrawlError(`the config file ${configPath} is being written by another crawl process (pid ${holder.pid}); nothing was changed`, ExitCode.failure, {
          hint: `try again; if no crawl is running, remove ${path}`,
        });
      }
      if (!told && waited >= QUIET_MS) {
        told = true;
        notice?.(`waiting for another crawl process (pid ${holder.pid}) to finish writing ${configPath}`);
      }
      await sleep(POLL_MS);
    }
  }

  /** Removes the lock, unless it was taken over meanwhile (then it is someone else's). */
  release(): void {
    removeIfStill(this.#path, this.#token);
  }
}

function tryCreate(path: string, token: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, JSON.stringify({ pid: process.pid, host: hostname(), token }) + '\n');
  } finally {
    closeSync(fd);
  }
  return true;
}

function readHolder(path: string): Holder | undefined {
  const read = readLockFile(path);
  if (read === undefined) return undefined;
  const { text, ageMs } = read;
  try {
    const parsed = JSON.parse(text) as Partial<Holder>;
    return {
      pid: typeof parsed.pid === 'number' ? parsed.pid : 0,
      host: typeof parsed.host === 'string' ? parsed.host : '',
      token: typeof parsed.token === 'string' ? parsed.token : text,
      ageMs,
    };
  } catch {
    // Being written this very moment, or garbage: judged by its age alone.
    return { pid: 0, host: '', token: text, ageMs };
  }
}

/**
 * Reads what sits at the lock's path without trusting it: never through a symlink (one to
 * /dev/zero would be read forever), never blocking (a FIFO would wait for a writer beyond
 * Ctrl-C), and only a few bytes. Anything but a regular file was not made by crawl: refused.
 */
function readLockFile(path: string): { text: string; ageMs: number } | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
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
    return { text: buffer.subarray(0, length).toString('utf8'), ageMs: Date.now() - stats.mtimeMs };
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
  if (holder.ageMs > STALE_MS) return true;
  // A live writer fills the lock in the same instant it creates it: an empty or garbled one that
  // has stayed so was left by a process killed in between.
  if (holder.pid === 0) return holder.ageMs > UNREADABLE_STALE_MS;
  // A pid means something only on the machine that wrote it (the folder may be shared).
  return holder.host === hostname() && holder.pid > 0 && !isRunning(holder.pid);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function removeIfStill(path: string, token: string): void {
  try {
    if (readHolder(path)?.token === token) unlinkSync(path);
  } catch {
    // Gone already, or not ours to remove.
  }
}

import { closeSync, constants, fstatSync, linkSync, lstatSync, openSync, readSync, realpathSync, renameSync, unlinkSync, writeSync, type Stats } from 'node:fs';
import { hostname } from 'node:os';
import { hostPlatform, isProcessRunning, processFacts, processId } from '../platform/host.js';
import { basename, dirname, join, resolve } from 'node:path';
import { CrawlError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { realClock, type Clock } from '../platform/clock.js';
import { removeCommand } from '../platform/platform.js';
import { eachShell, programWords, quotingFor, type Quoting } from '../text/shell.js';

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
  /** The first MAX_LOCK_BYTES. */
  text: string;
  /** The last MAX_LOCK_BYTES of a file longer than that: where the latest claims are. */
  tail?: string;
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
  /**
   * Appends `text` to the file at `path` if it is still the lock judged: the file numbered `ino`,
   * beginning with `original`. False when it is gone or another lock has taken the path (a new
   * file may get the number of one just removed). Never follows a symlink, never creates.
   */
  append(path: string, text: string, judged: { ino: number; original: string }): Promise<boolean>;
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
  async append(path, text, judged) {
    let fd: number;
    try {
      fd = openSync(path, constants.O_RDWR | constants.O_APPEND | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (error) {
      const code = codeOf(error);
      if (code === 'ENOENT' || code === 'ELOOP' || code === 'EMLINK' || code === 'ENXIO') return false;
      throw error;
    }
    try {
      const stats = fstatSync(fd);
      if (!stats.isFile() || stats.ino !== judged.ino) return false;
      const head = Buffer.alloc(MAX_LOCK_BYTES);
      const length = readSync(fd, head, 0, MAX_LOCK_BYTES, 0);
      if (originalOf(head.subarray(0, length).toString('utf8')) !== judged.original) return false;
      writeSync(fd, text);
      return true;
    } finally {
      closeSync(fd);
    }
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
  /** The shells a hint's command is written for (`rm` or `del`, text/shell.ts's quotingFor); this system's by default. */
  quoting?: Quoting;
}

interface Holder {
  pid: number;
  host: string;
  token: string;
  ageMs: number;
  /** The lock as its holder wrote it: what is before the first claim. */
  original: string;
  /** Claims appended by processes taking the lock over, oldest first. */
  claims: Claim[];
  /** With the token, tells the lock that was judged from a newer one at the same path. */
  ino: number;
  mtimeMs: number;
}

/**
 * `config.json.lock`, created exclusively (O_EXCL) by the process about to rewrite the config, so
 * two crawl processes writing at once take turns instead of one silently undoing the other.
 *
 * A lock left by a process that no longer runs (killed mid-write) is taken over by claims: each
 * claimant that finds no live claim on it appends one line naming itself, then reads the file back,
 * and only the first live claim removes the lock; the others wait like for any lock. No one but
 * that winner touches the path, so a claimant that judged late cannot remove a lock created since
 * (a rename or unlink by path would act on whatever is there by then). A winner that dies before
 * removing it leaves a claim whose process is gone, which the next claimant passes over.
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
    try {
      return await ConfigLock.#acquire(configPath, options);
    } catch (error) {
      // Found where the lock is read, which knows no shell: told here, in the user's shell's words.
      if (error instanceof NotALock) throw notALock(error.path, error.kind, options.quoting ?? quotingFor(hostPlatform(), processFacts().env));
      throw error;
    }
  }

  static async #acquire(configPath: string, options: LockOptions): Promise<ConfigLock> {
    const clock = options.clock ?? realClock;
    const fs = options.fs ?? nodeLockFs;
    const path = lockPathFor(configPath);
    // Loaded here, not at start-up: node:crypto loads many modules of its own, and only config writes need it.
    const { randomBytes } = await import('node:crypto');
    const token = randomBytes(8).toString('hex');
    const content = JSON.stringify({ pid: processId(), host: hostname(), token }) + '\n';
    const started = clock.now();
    let told = false;
    for (;;) {
      if (await fs.create(path, content)) return new ConfigLock(path, token, fs);
      const holder = await readHolder(fs, path, clock.now());
      if (holder === undefined) continue; // released in between
      let waitingOn = holder.pid;
      if (isStale(holder)) {
        const first = firstLiveClaim(holder, clock.now());
        if (first === undefined || first.token === token) {
          if ((await claimStale(fs, path, token, holder, clock.now())) === 'removed') continue;
        } else {
          // Another process is taking it over: waited for like a holder.
          waitingOn = first.pid;
        }
      }
      const waited = clock.now() - started;
      if (waited >= WAIT_MS) {
        throw new CrawlError(`the config file ${configPath} is being written by another crawl process (pid ${waitingOn}); nothing was changed`, ExitCode.failure, {
          hint: `try again; if no crawl is running, remove ${path}`,
        });
      }
      if (!told && waited >= QUIET_MS) {
        told = true;
        options.notice?.(`waiting for another crawl process (pid ${waitingOn}) to finish writing ${configPath}`);
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

/** Starts each claim line: a lock as crawl writes it is one JSON line, so it can never hold this. */
const CLAIM = '\nclaim ';

interface Claim {
  pid: number;
  host: string;
  token: string;
  /** When it was made, by the claimant's clock: how a claim from another machine ages out. */
  at: number;
}

/**
 * Claims a lock judged stale and removes it if this claim is the first live one. 'waiting': an
 * earlier claim stands, or the lock changed meanwhile; either way it is looked at again.
 */
async function claimStale(fs: LockFs, path: string, token: string, judged: Holder, now: number): Promise<'removed' | 'waiting'> {
  if (firstLiveClaim(judged, now)?.token !== token) {
    const claim: Claim = { pid: processId(), host: hostname(), token, at: now };
    if (!(await fs.append(path, `${CLAIM}${JSON.stringify(claim)}\n`, judged))) return 'waiting';
    const after = await readHolder(fs, path, now);
    if (after === undefined || after.ino !== judged.ino || after.original !== judged.original) return 'waiting';
    if (firstLiveClaim(after, now)?.token !== token) return 'waiting';
  }
  await fs.unlink(path).catch(ignoreGone);
  return 'removed';
}

/** The claim that decides a takeover: the first whose process may still be making it. */
function firstLiveClaim(holder: Holder, now: number): Claim | undefined {
  return holder.claims.find((claim) =>
    // A pid means something only on the machine that wrote it; a claim from elsewhere ages out.
    claim.host === hostname() ? isProcessRunning(claim.pid) : now - claim.at <= STALE_MS,
  );
}

/** The lock as its holder wrote it, without the claims appended since. */
function originalOf(text: string): string {
  const at = text.indexOf(CLAIM);
  return at < 0 ? text : text.slice(0, at);
}

function parseClaims(lines: string[]): Claim[] {
  const claims: Claim[] = [];
  for (const line of lines) {
    try {
      const c = JSON.parse(line.split('\n')[0] ?? '') as Partial<Claim>;
      if (claims.some((seen) => seen.token === c.token)) continue;
      if (Number.isSafeInteger(c.pid) && typeof c.host === 'string' && typeof c.token === 'string' && typeof c.at === 'number') {
        claims.push({ pid: c.pid as number, host: c.host, token: c.token, at: c.at });
      }
    } catch {
      // Cut off by the read limit, or not crawl's: no claim.
    }
  }
  return claims;
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
  const [original = '', ...claimLines] = text.split(CLAIM);
  // Past the bytes read from the start, claims are read from the end (what precedes the first
  // claim there is the middle of something).
  const claims = parseClaims([...claimLines, ...(file.tail?.split(CLAIM).slice(1) ?? [])]);
  const ageMs = now - mtimeMs;
  try {
    const parsed = JSON.parse(original) as Partial<Holder>;
    return {
      // Anything but a real pid reads as none: such a lock is judged by its age, as garbage is.
      pid: Number.isSafeInteger(parsed.pid) && (parsed.pid as number) > 0 ? (parsed.pid as number) : 0,
      host: typeof parsed.host === 'string' ? parsed.host : '',
      token: typeof parsed.token === 'string' ? parsed.token : original,
      ageMs,
      original,
      claims,
      ino,
      mtimeMs,
    };
  } catch {
    // Being written this very moment, or garbage: judged by its age alone.
    return { pid: 0, host: '', token: original, ageMs, original, claims, ino, mtimeMs };
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
      if (stats.isSymbolicLink()) throw new NotALock(path, 'a symbolic link');
    }
    throw error;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new NotALock(path, kindOf(stats));
    const buffer = Buffer.alloc(MAX_LOCK_BYTES);
    const length = readSync(fd, buffer, 0, MAX_LOCK_BYTES, 0);
    const file: LockFile = { text: buffer.subarray(0, length).toString('utf8'), ino: stats.ino, mtimeMs: stats.mtimeMs };
    if (stats.size > MAX_LOCK_BYTES) {
      const end = readSync(fd, buffer, 0, MAX_LOCK_BYTES, stats.size - MAX_LOCK_BYTES);
      file.tail = buffer.subarray(0, end).toString('utf8');
    }
    return file;
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

/** Something at the lock's path that crawl did not make (what it is: `kind`). */
class NotALock extends Error {
  constructor(
    readonly path: string,
    readonly kind: string,
  ) {
    super(`the config lock ${path} is ${kind}`);
  }
}

function notALock(path: string, kind: string, quoting: Quoting): CrawlError {
  // Each form is for its own shells, named when there are two.
  const remove = eachShell(quoting, (shell) => programWords(removeCommand(shell, path, kind === 'a folder'), shell, () => 'path'), { windows: 'cmd or PowerShell' });
  return new CrawlError(`the config lock ${path} is ${kind}, not a lock file crawl made; nothing was changed`, ExitCode.failure, {
    hint: `remove it (${remove}) and try again`,
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

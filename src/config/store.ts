import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { withoutByteOrderMark } from '../text/byte-order-mark.js';
import { isRecord } from '../text/record.js';
import { CrawlError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import type { Clock } from '../platform/clock.js';
import { keyDefect } from '../text/keys.js';
import { checkFileTrusted, checkFoldersTrusted } from './file-trust.js';
import { describeFsError, notAFolder } from '../platform/fs-errors.js';
import type { Quoting } from '../text/shell.js';
import { ConfigLock } from './lock.js';
import { CONFIG_KEYS, type ConfigKey } from './setting-names.js';
import { loadConfigWriter } from './conf-writer.js';
import { makeFolders } from '../platform/make-folders.js';


export { CONFIG_KEYS, type ConfigKey };

export type Profile = Partial<Record<ConfigKey, string>>;
export interface ConfigData {
  profiles: Record<string, Profile>;
}

/** The file as parsed: everything in it, including what this version does not know. */
type Document = Record<string, unknown> & { profiles?: Record<string, Record<string, unknown>> };

/** Far above any real config; a path to /dev/zero or a huge file is refused, not read into memory. */
const MAX_CONFIG_BYTES = 1024 * 1024;

export interface ConfigStoreOptions {
  /** One line for the user (stderr), e.g. while waiting for another process's write. */
  notice?: (line: string) => void;
  /** What waits for another writer's lock go through; the real clock by default. */
  clock?: Pick<Clock, 'now' | 'sleep'>;
  /** Runs a write as a section an exit after Ctrl-C waits for (the run's ExitGuard); by default it just runs. */
  guard?: { critical<T>(work: () => Promise<T>): Promise<T> };
  /** The shells a hint's command is written for (text/shell.ts's quotingFor); this system's by default. */
  quoting?: Quoting;
}

/**
 * The config file: profiles, each with a base URL and an API key.
 *
 * Reading is a plain JSON.parse of the file (commands that only read pay nothing more). A write
 * takes a lock beside the file, re-reads it (another crawl may have written since), changes one
 * profile, and replaces the file atomically with mode 0600: concurrent writers never lose each
 * other's changes and readers never see half a file. Fields this version does not know are kept.
 * A file that does not parse is never overwritten: reads and writes both stop with an error
 * naming the file, so a hand-edited config is not lost to a silent reset. A file that other users
 * could change (see file-trust.ts) is neither read nor written.
 */
export class ConfigStore {
  readonly path: string;
  readonly #options: ConfigStoreOptions;
  #data: ConfigData | undefined;

  constructor(path: string, options: ConfigStoreOptions = {}) {
    this.path = path;
    this.#options = options;
  }

  read(): ConfigData {
    this.#data ??= toData(readDocument(this.path));
    return this.#data;
  }

  profile(name: string): Profile {
    const { profiles } = this.read();
    return Object.hasOwn(profiles, name) ? (profiles[name] ?? {}) : {};
  }

  /**
   * Applies `change` to the profile as the file holds it now and writes the whole file.
   * `change` may throw to refuse (nothing is written then). Runs as a critical section: an
   * interrupt lets it finish rather than leave the lock behind.
   */
  async update(profileName: string, change: (profile: Profile) => void): Promise<void> {
    await this.transact(profileName, async () => change);
  }

  /**
   * Under the config's lock: `prepare` sees the profile as the file holds it now and may do slow
   * work that must not interleave with another crawl's (storing a key in the keyring, then reading
   * it back); the change it returns is then applied and the file written, as with update(). A
   * throw from either writes nothing. Resolves with what `prepare` resolved with besides.
   */
  async transact<T = void>(profileName: string, prepare: (profile: Readonly<Profile>) => Promise<((profile: Profile) => void) | [(profile: Profile) => void, T]>): Promise<T | undefined> {
    // The file must be readable before anything is created beside it.
    this.read();
    const write = await loadConfigWriter();
    const critical = this.#options.guard ? this.#options.guard.critical.bind(this.#options.guard) : <R>(work: () => Promise<R>) => work();
    return critical(async () => {
      ensureFolder(this.path);
      // A new file would be created in a folder someone else could swap it out of.
      checkFoldersTrusted(this.path);
      let lock: ConfigLock;
      try {
        // No interrupt: a write may be storing a key the service already made; the wait is bounded.
        lock = await ConfigLock.acquire(this.path, { notice: this.#options.notice, clock: this.#options.clock, ...(this.#options.quoting === undefined ? {} : { quoting: this.#options.quoting }) });
      } catch (error) {
        throw writeFailure(this.path, error);
      }
      try {
        const doc = readDocument(this.path);
        const profiles: Record<string, Record<string, unknown>> = { ...(doc.profiles ?? {}) };
        const raw: Record<string, unknown> = { ...(profiles[profileName] ?? {}) };
        const profile = knownSettings(raw);
        const prepared = await prepare({ ...profile });
        const [change, result] = Array.isArray(prepared) ? prepared : [prepared, undefined];
        const before = profile['api-key'];
        change(profile);
        checkStoredKey(this.path, profileName, before, profile['api-key']);
        for (const key of CONFIG_KEYS) {
          if (profile[key] === undefined) delete raw[key];
          else raw[key] = profile[key];
        }
        if (Object.keys(raw).length === 0) delete profiles[profileName];
        else profiles[profileName] = raw;
        const next: Document = { ...doc, profiles };
        try {
          write(this.path, next, 0o600);
        } catch (error) {
          throw writeFailure(this.path, error);
        }
        this.#data = toData(next);
        return result;
      } finally {
        await lock.release();
      }
    });
  }
}

/**
 * A key that every later command would refuse to send is not stored: the caller still holds it
 * and can say so. A key already there may be removed or replaced, whatever it holds.
 */
function checkStoredKey(path: string, profile: string, before: string | undefined, after: string | undefined): void {
  if (after === undefined || after === before) return;
  const defect = keyDefect(after);
  if (defect === undefined) return;
  throw new CrawlError(`refusing to store the key in profile "${profile}" of ${path}: it ${defect}`, ExitCode.usage, {
    hint: 'a key is one line of printable characters; give exactly the key',
  });
}

/** The folder holds a secret: created private (0700). */
function ensureFolder(path: string): void {
  try {
    makeFolders(dirname(path), 0o700);
  } catch (error) {
    throw writeFailure(path, error);
  }
}

function readDocument(path: string): Document {
  let text: string;
  try {
    text = readText(path);
  } catch (error) {
    if (error instanceof CrawlError) throw error;
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new CrawlError(`cannot read config file ${path}: ${explain(path, error)}`, ExitCode.failure, {
      hint: 'check the permissions of the file and its folder, or point CRAWL_CONFIG_DIR elsewhere',
    });
  }
  return parseDocument(text, path);
}

/**
 * Non-blocking open, so a FIFO in place of the file cannot hang the command; anything but a
 * regular file of sane size is refused before it is read.
 */
function readText(path: string): string {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stats = fstatSync(fd);
    if (stats.isDirectory()) throw Object.assign(new Error('EISDIR'), { code: 'EISDIR' });
    if (!stats.isFile()) {
      throw new CrawlError(`config file ${path} is not a regular file`, ExitCode.failure, { hint: fixHint(path) });
    }
    checkFileTrusted(path, stats);
    checkFoldersTrusted(path);
    if (stats.size > MAX_CONFIG_BYTES) {
      throw new CrawlError(`config file ${path} is too large (${stats.size} bytes) to be a crawl config`, ExitCode.failure, { hint: fixHint(path) });
    }
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

function fixHint(path: string): string {
  return `fix it by hand or move it aside (mv ${path} ${path}.bak) and run \`crawl auth login\` again`;
}

export function parseConfig(text: string, path: string): ConfigData {
  return toData(parseDocument(text, path));
}

function parseDocument(withMark: string, path: string): Document {
  const hint = fixHint(path);
  const text = withoutByteOrderMark(withMark);
  if (text.trim() === '') return {};
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new CrawlError(`config file ${path} is not valid JSON`, ExitCode.failure, { hint });
  }
  if (!isRecord(raw)) {
    throw new CrawlError(`config file ${path} does not hold a JSON object`, ExitCode.failure, { hint });
  }
  const profiles = raw.profiles;
  if (profiles !== undefined) {
    if (!isRecord(profiles)) throw new CrawlError(`config file ${path}: "profiles" is not an object`, ExitCode.failure, { hint });
    for (const [name, value] of Object.entries(profiles)) {
      if (!isRecord(value)) throw new CrawlError(`config file ${path}: profile "${name}" is not an object`, ExitCode.failure, { hint });
    }
  }
  return raw as Document;
}

function toData(doc: Document): ConfigData {
  // No prototype: a hand-written profile named "__proto__" or "constructor" is just a name.
  const profiles: Record<string, Profile> = Object.create(null) as Record<string, Profile>;
  for (const [name, value] of Object.entries(doc.profiles ?? {})) profiles[name] = knownSettings(value);
  return { profiles };
}

/** The settings this version knows, as strings; anything else in the profile is left alone. */
function knownSettings(raw: Record<string, unknown>): Profile {
  const profile: Profile = {};
  for (const key of CONFIG_KEYS) {
    const v = raw[key];
    if (typeof v === 'string') profile[key] = v;
  }
  return profile;
}

function writeFailure(path: string, error: unknown): CrawlError {
  if (error instanceof CrawlError) return error;
  return new CrawlError(`cannot write config file ${path}: ${explain(path, error)}`, ExitCode.failure, {
    hint: 'nothing was changed; check the permissions of the config folder or set CRAWL_CONFIG_DIR',
  });
}

/** "/x is a file, not a folder" says more than ENOTDIR (or mkdir's EEXIST) does. */
function explain(path: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOTDIR' || code === 'EEXIST') {
    const culprit = notAFolder(path);
    if (culprit !== undefined) return `${culprit} is not a folder`;
  }
  return describeFsError(error);
}

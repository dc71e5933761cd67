import type { Env } from '../platform/env.js';
import { CrawlError, UsageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { keyDefect, trimKeyText } from '../text/keys.js';
import { commandLine, quotingFor, suggestionFlags, withFileOnStdin } from '../text/shell.js';
import { closestWord } from '../text/similar.js';
import { hostPlatform } from '../platform/host.js';
import type { Platform } from '../platform/platform.js';
import { locateConfig, movedNotice } from './paths.js';
import { settingSpec, type ConfigKey } from './setting-names.js';
import { ConfigStore, type ConfigStoreOptions, type Profile } from './store.js';
import type { KeyStore } from './key-stores/key-store.js';
import { openKeyStore, type KeyStoreOptions } from './key-stores/open.js';

export type Source = 'flag' | 'env' | 'config' | 'default';

export interface Resolved<T> {
  value: T;
  source: Source;
}

export interface GlobalFlags {
  baseUrl?: string;
  profile?: string;
}

/** The key in use: from CRAWL_API_KEY (source "env"), or from the profile's store (source "config"). */
export interface ResolvedKey extends Resolved<string> {
  store?: KeyStore;
}

/**
 * Settings by the contract's precedence: flag > environment > config file (selected profile) > default.
 * The config file is read only when a flag or variable has not already answered.
 */
export class Settings {
  readonly #env: Env;
  readonly #flags: GlobalFlags;
  readonly #platform: Platform;
  readonly #keyOptions: KeyStoreOptions;
  readonly #storeOptions: ConfigStoreOptions;
  #store: ConfigStore | undefined;
  #key: Promise<ResolvedKey | undefined> | undefined;

  constructor(
    env: Env,
    flags: GlobalFlags,
    storeOptions: ConfigStoreOptions = {},
    keyOptions: Partial<KeyStoreOptions> = {},
    platform: Platform = hostPlatform(),
  ) {
    this.#env = env;
    this.#flags = flags;
    this.#platform = platform;
    this.#storeOptions = storeOptions;
    this.#keyOptions = { env, command: (words) => this.command(words), ...keyOptions };
  }

  /**
   * The config file, found (the folders looked at, on Windows an earlier version's place too)
   * when first needed: a run whose flags and variables answer everything never looks.
   */
  get store(): ConfigStore {
    if (this.#store === undefined) {
      const config = locateConfig(this.#env, this.#platform);
      this.#store = new ConfigStore(config.path, { quoting: quotingFor(this.#platform, this.#env), ...this.#storeOptions });
      const moved = movedNotice(config);
      if (moved !== undefined) this.#storeOptions.notice?.(moved);
    }
    return this.#store;
  }

  /** What the key stores of this run are opened with (the key-home module builds new ones from it). */
  get keyOptions(): KeyStoreOptions {
    return this.#keyOptions;
  }

  /** The store the config file names for the selected profile; undefined when it has no key. */
  keyStore(): KeyStore | undefined {
    return openKeyStore(this.stored(), this.profile().value, this.store, this.#keyOptions);
  }

  profile(): Resolved<string> {
    if (this.#flags.profile !== undefined) return { value: checkProfile(this.#flags.profile), source: 'flag' };
    if (this.#env.CRAWL_PROFILE) return { value: checkProfile(this.#env.CRAWL_PROFILE), source: 'env' };
    return { value: 'default', source: 'default' };
  }

  baseUrl(): Resolved<string> | undefined {
    if (this.#flags.baseUrl !== undefined) return { value: this.#flags.baseUrl, source: 'flag' };
    if (this.#env.CRAWL_BASE_URL) return { value: this.#env.CRAWL_BASE_URL, source: 'env' };
    const fromConfig = this.stored()['base-url'];
    return fromConfig ? { value: fromConfig, source: 'config' } : undefined;
  }

  /**
   * The selected profile's settings in the config file. A profile named by --profile or
   * CRAWL_PROFILE must be there: a mistyped name is reported, with the names the file has, rather
   * than read as an empty profile ("no API key configured"). Commands that create a profile
   * (`config set`, `auth login`) write it without reading it first.
   */
  stored(): Profile {
    const { value: name, source } = this.profile();
    const { profiles } = this.store.read();
    if (Object.hasOwn(profiles, name)) return profiles[name] ?? {};
    if (name === 'default') return {};
    const known = Object.keys(profiles);
    const from = source === 'flag' ? '--profile' : 'CRAWL_PROFILE';
    const create = `\`${this.command(['config', 'set', 'base-url'])} <url>\`, then \`${this.command(['auth', 'login'])}\``;
    const meant = closestWord(name, known);
    throw new UsageError(
      `unknown profile "${name}" (from ${from}): ${known.length === 0 ? `no profile is configured yet (${this.store.path})` : `the profiles in ${this.store.path} are ${known.map((k) => `"${k}"`).join(', ')}`}`,
      meant === undefined ? `to create it: ${create}` : `did you mean "${meant}" (${from === '--profile' ? `--profile ${meant}` : `CRAWL_PROFILE=${meant}`})? To create "${name}": ${create}`,
    );
  }

  /** The global flags a suggested command repeats (see text/shell.ts); never throws. */
  suggestionFlags(): string[] {
    let profile: string | undefined;
    try {
      profile = this.profile().value;
    } catch {
      // An invalid name is reported by the command itself; a hint goes without it.
    }
    return suggestionFlags(profile, this.#flags.baseUrl);
  }

  /** A `crawl` command line for a hint, with this run's profile (and --base-url) in it. */
  command(words: readonly string[]): string {
    return commandLine({ command: ['crawl', ...this.suggestionFlags(), ...words] }, quotingFor(this.#platform, this.#env));
  }

  /**
   * The key, refused (exit 2, before any request) when it cannot be a bearer token: a line break
   * or another control character would otherwise fail deep in the HTTP layer, retried as if the
   * network were at fault. Spaces, tabs and line breaks around CRAWL_API_KEY are dropped (what
   * `$(cat key.txt)` or a CRLF file leaves); a store's key is taken exactly as stored. Read once a
   * run: a keyring is asked, a key command run, at most once.
   */
  apiKey(signal: AbortSignal = new AbortController().signal): Promise<ResolvedKey | undefined> {
    this.#key ??= this.#readKey(signal);
    return this.#key;
  }

  /**
   * The key where it can be read at once (CRAWL_API_KEY, or a plaintext profile key), for the
   * Node client's synchronous factory; a profile whose key is in the keyring or behind a key
   * command needs the asynchronous read (apiKey(), the client's openClient()).
   */
  localApiKey(): ResolvedKey {
    const fromEnv = this.#envKey();
    if (fromEnv) return fromEnv;
    const store = this.keyStore();
    if (store !== undefined && store.kind !== 'file') {
      throw new UsageError(
        `profile "${this.profile().value}" keeps its key in the ${store.describe()}, which is read asynchronously`,
        'create the client with `await openClient(options)` (or pass `apiKey`)',
      );
    }
    const key = this.stored()['api-key'];
    if (key === undefined || store === undefined) throw new UsageError('no API key configured', `run \`${this.command(['auth', 'login'])}\` or set CRAWL_API_KEY`);
    return this.#checked(key, store);
  }

  /** CRAWL_API_KEY, refused (exit 2) when it cannot be a bearer token; undefined when unset or blank. */
  #envKey(): ResolvedKey | undefined {
    const fromEnv = trimKeyText(this.#env.CRAWL_API_KEY ?? '');
    if (!fromEnv) return undefined;
    const defect = keyDefect(fromEnv);
    if (defect) throw new UsageError(`CRAWL_API_KEY ${defect}; refusing to send it`, 'set CRAWL_API_KEY to the key alone, exactly as it was issued');
    return { value: fromEnv, source: 'env' };
  }

  /** A store's key, refused (exit 2) when it cannot be a bearer token, naming where it is. */
  #checked(key: string, store: KeyStore): ResolvedKey {
    const defect = keyDefect(key);
    if (defect) {
      throw new UsageError(
        `the API key of profile "${this.profile().value}" in ${store.kind === 'file' ? this.store.path : `the ${store.describe()}`} ${defect}; refusing to send it`,
        `store the key again with ${withFileOnStdin(this.command(['auth', 'login', '--with-key']), 'keyfile', quotingFor(this.#platform, this.#env))}`,
      );
    }
    return { value: key, source: 'config', store };
  }

  /** Forgets the key read so far (another was stored since): the next apiKey() reads the store again. */
  resetKey(): void {
    this.#key = undefined;
  }

  /**
   * The keyring holds this profile's key, so a shell that reaches none (SSH, no session bus) is
   * told so: it cannot be reached here, not that there is none. Told by the error's name: the
   * class's module is the key stores', which a run whose key is in CRAWL_API_KEY never loads.
   */
  #notReachedHere(store: KeyStore, error: unknown): unknown {
    if (store.kind !== 'keyring' || !(error instanceof Error) || error.name !== 'KeyringUnavailableError') return error;
    const { reason, hint } = error as Error & { reason: string; hint?: string };
    return new CrawlError(`the ${store.describe()} cannot be reached here: ${reason}; profile "${this.profile().value}" keeps its key there`, ExitCode.failure, {
      ...(hint === undefined ? {} : { hint }),
      cause: error,
    });
  }

  async #readKey(signal: AbortSignal): Promise<ResolvedKey | undefined> {
    const fromEnv = this.#envKey();
    if (fromEnv) {
      this.#keyOptions.onSecret?.(fromEnv.value);
      return fromEnv;
    }
    const store = this.keyStore();
    if (!store) return undefined;
    const key = await store.read(signal).catch((error: unknown) => {
      throw this.#notReachedHere(store, error);
    });
    if (key === undefined) {
      if (store.kind === 'file') return undefined;
      throw new UsageError(
        `profile "${this.profile().value}" keeps its key in the ${store.describe()}, which holds no key for it on this machine`,
        `log in here with \`${this.command(['auth', 'login'])}\`, or set CRAWL_API_KEY`,
      );
    }
    this.#keyOptions.onSecret?.(key);
    return this.#checked(key, store);
  }


  /**
   * A setting as commands use it (flag > environment > the profile > default, by the table in
   * setting-names.ts), unchecked: `config list` shows even a value no command would send (masked),
   * where a command would refuse it. Undefined when nothing sets it.
   */
  resolve(name: ConfigKey): Resolved<string> | undefined {
    const spec = settingSpec(name);
    const flag = spec.flag === undefined ? undefined : this.#flagValues()[spec.flag];
    if (flag !== undefined) return { value: flag, source: 'flag' };
    const fromEnv = spec.env === undefined ? '' : (this.#env[spec.env] ?? '');
    // A key's surrounding blanks are dropped, as apiKey() drops them.
    const env = spec.secret ? trimKeyText(fromEnv) : fromEnv;
    if (env) return { value: env, source: 'env' };
    const stored = this.stored()[name];
    if (stored) return { value: stored, source: 'config' };
    return spec.default === undefined ? undefined : { value: spec.default, source: 'default' };
  }

  /** The flag or variable that wins over the profile's own value of `name` in this run, by its name (`CRAWL_BASE_URL`). */
  overriddenBy(name: ConfigKey): string | undefined {
    const resolved = this.resolve(name);
    if (resolved?.source !== 'flag' && resolved?.source !== 'env') return undefined;
    return describeSetting(name, resolved.source);
  }

  #flagValues(): Record<string, string | undefined> {
    return { '--base-url': this.#flags.baseUrl };
  }

  requireBaseUrl(): Resolved<string> {
    const base = this.baseUrl();
    if (!base) {
      throw new UsageError(
        'no base URL configured',
        `run \`${this.command(['config', 'set', 'base-url'])} <url>\`, set CRAWL_BASE_URL, or pass --base-url`,
      );
    }
    return base;
  }

  async requireApiKey(signal?: AbortSignal): Promise<ResolvedKey> {
    const key = await this.apiKey(signal);
    if (!key) {
      throw new UsageError('no API key configured', `run \`${this.command(['auth', 'login'])}\` or set CRAWL_API_KEY`);
    }
    return key;
  }
}

function checkProfile(name: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(name)) {
    throw new UsageError(`invalid profile name "${name}"`, 'use letters, digits, ".", "_" or "-"');
  }
  return name;
}

/** Where a setting's value came from, for people: `the --base-url flag`, `CRAWL_BASE_URL`, `the config file`, `the default`. */
export function describeSource(source: Source, what: ConfigKey): string {
  switch (source) {
    case 'flag':
      return `the ${describeSetting(what, source)} flag`;
    case 'config':
      return 'the config file';
    case 'default':
      return 'the default';
    default:
      return describeSetting(what, source);
  }
}

/** The flag's or the variable's own name (`--base-url`, `CRAWL_BASE_URL`); for the profile and the default, a phrase. */
function describeSetting(name: ConfigKey, source: Source): string {
  const spec = settingSpec(name);
  if (source === 'flag') return spec.flag ?? 'a flag';
  if (source === 'env') return spec.env ?? 'the environment';
  return source === 'config' ? 'the config file' : 'the default';
}

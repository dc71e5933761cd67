import { UsageError } from '../errors.js';
import { configFile } from './paths.js';
import { ConfigStore, type ConfigStoreOptions } from './store.js';

export type Source = 'flag' | 'env' | 'config' | 'default';

export interface Resolved<T> {
  value: T;
  source: Source;
}

export interface GlobalFlags {
  baseUrl?: string;
  profile?: string;
}

/**
 * Settings by the contract's precedence: flag > environment > config file (selected profile) > default.
 * The config file is read only when a flag or variable has not already answered.
 */
export class Settings {
  readonly store: ConfigStore;
  readonly #env: NodeJS.ProcessEnv;
  readonly #flags: GlobalFlags;

  constructor(env: NodeJS.ProcessEnv, flags: GlobalFlags, storeOptions: ConfigStoreOptions = {}) {
    this.#env = env;
    this.#flags = flags;
    this.store = new ConfigStore(configFile(env), storeOptions);
  }

  profile(): Resolved<string> {
    if (this.#flags.profile !== undefined) return { value: checkProfile(this.#flags.profile), source: 'flag' };
    if (this.#env.CRAWL_PROFILE) return { value: checkProfile(this.#env.CRAWL_PROFILE), source: 'env' };
    return { value: 'default', source: 'default' };
  }

  baseUrl(): Resolved<string> | undefined {
    if (this.#flags.baseUrl !== undefined) return { value: this.#flags.baseUrl, source: 'flag' };
    if (this.#env.CRAWL_BASE_URL) return { value: this.#env.CRAWL_BASE_URL, source: 'env' };
    const fromConfig = this.store.profile(this.profile().value)['base-url'];
    return fromConfig ? { value: fromConfig, source: 'config' } : undefined;
  }

  apiKey(): Resolved<string> | undefined {
    const fromEnv = this.#env.CRAWL_API_KEY?.trim();
    if (fromEnv) return { value: fromEnv, source: 'env' };
    const fromConfig = this.store.profile(this.profile().value)['api-key'];
    return fromConfig ? { value: fromConfig, source: 'config' } : undefined;
  }

  requireBaseUrl(): Resolved<string> {
    const base = this.baseUrl();
    if (!base) {
      throw new UsageError(
        'no base URL configured',
        'run `crawl config set base-url <url>`, set CRAWL_BASE_URL, or pass --base-url',
      );
    }
    return base;
  }

  requireApiKey(): Resolved<string> {
    const key = this.apiKey();
    if (!key) {
      throw new UsageError('no API key configured', 'run `crawl auth login` or set CRAWL_API_KEY');
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

export function describeSource(source: Source, what: 'base-url' | 'api-key'): string {
  switch (source) {
    case 'flag':
      return 'the --base-url flag';
    case 'env':
      return what === 'base-url' ? 'CRAWL_BASE_URL' : 'CRAWL_API_KEY';
    case 'config':
      return 'the config file';
    default:
      return 'the default';
  }
}

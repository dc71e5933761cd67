// The key in plaintext in the config file (`api-key`, mode 0600): chosen with --insecure-storage,
// or taken when no keyring is reachable at all. Profiles from before the keyring are this store.
import type { ConfigStore } from '../store.js';
import type { KeyStore } from './key-store.js';
import { describeFile } from './store-names.js';

export class FileStore implements KeyStore {
  readonly kind = 'file' as const;
  readonly #config: ConfigStore;
  readonly #profile: string;

  constructor(config: ConfigStore, profile: string) {
    this.#config = config;
    this.#profile = profile;
  }

  describe(): string {
    return describeFile(this.#config.path);
  }

  async read(): Promise<string | undefined> {
    return this.#config.profile(this.#profile)['api-key'];
  }

  async write(key: string): Promise<void> {
    await this.#config.update(this.#profile, (p) => {
      p['api-key'] = key;
      delete p['key-store'];
    });
  }

  async erase(): Promise<boolean> {
    const had = this.#config.profile(this.#profile)['api-key'] !== undefined;
    await this.#config.update(this.#profile, (p) => {
      delete p['api-key'];
    });
    return had;
  }
}

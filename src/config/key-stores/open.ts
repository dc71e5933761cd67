// The store a profile's config names, opened with what the run gives it (env, clock, whether a
// person can answer an unlock prompt, where notices go). Stores are built here alone, and each
// store's code (the keyring's D-Bus client, the command runner's) loads at its first read, write
// or erase: a run that names a store (`auth status`) or takes CRAWL_API_KEY loads none of them.
import type { Env } from '../../platform/env.js';
import { realClock } from '../../platform/clock.js';
import { currentUid, hostPlatform } from '../../platform/host.js';
import type { ConfigStore, Profile } from '../store.js';
import type { DeadlineClock, KeyStore, KeyStoreKind } from './key-store.js';
import type { KeyringEntry } from './keyring-entry.js';
import type { KeyringStore } from './keyring-store.js';
import { recordedEntry, recordedKind } from './profile-store.js';
import { describeCommand, describeFile, describeKeyring } from './store-names.js';

export interface KeyStoreOptions {
  env: Env;
  /** The `crawl …` command lines hints name (with the run's --profile). */
  command(words: readonly string[]): string;
  platform?: NodeJS.Platform;
  uid?: number | undefined;
  /** The user's runtime folder (Platform.runtimeDir), for the hint that names the desktop's bus. */
  runtimeDir?: string | undefined;
  /** Where the native keyring binding is required from (Platform.keyringBindingFrom). */
  bindingFrom?: string | undefined;
  clock?: DeadlineClock;
  /** A person can answer an unlock dialog: a terminal, not --no-input, not CI. */
  interactive?: () => boolean;
  /** One line for the user on stderr. */
  notice?(line: string): void;
  /** One line for --verbose. */
  verbose?(line: string): void;
  /** A key command's stderr, passed on. */
  onCommandStderr?(text: string): void;
  /** Every key read from a store, as soon as it is read (the run's redactor). */
  onSecret?(key: string): void;
}

/** A store named and described now, its code loaded at its first use (once). */
function loadedOnUse(kind: KeyStoreKind, description: string, load: () => Promise<KeyStore>): KeyStore {
  let store: Promise<KeyStore> | undefined;
  const real = (): Promise<KeyStore> => (store ??= load());
  return {
    kind,
    describe: () => description,
    read: async (signal) => (await real()).read(signal),
    write: async (key, signal) => (await real()).write(key, signal),
    erase: async (signal) => (await real()).erase(signal),
  };
}

/** The keyring store as key-home.ts uses it: a store, and the probe `auth login` runs before it asks for a key. */
export type KeyringHome = KeyStore & Pick<KeyringStore, 'probe' | 'prepareWrite'>;

export function keyringStore(entry: KeyringEntry, profile: string, configPath: string, o: KeyStoreOptions): KeyringHome {
  const platform = o.platform ?? hostPlatform().os;
  let store: Promise<KeyringStore> | undefined;
  const real = (): Promise<KeyringStore> =>
    (store ??= (async () => {
      const [{ KeyringStore }, { entryLabel }, { boundsFrom }] = await Promise.all([import('./keyring-store.js'), import('./keyring-entry.js'), import('./key-store.js')]);
      return new KeyringStore(entry, entryLabel(entry, profile, configPath), {
        env: o.env,
        platform,
        uid: 'uid' in o ? o.uid : currentUid(),
        runtimeDir: o.runtimeDir,
        bindingFrom: o.bindingFrom,
        bounds: boundsFrom(o.env),
        clock: o.clock ?? realClock,
        interactive: o.interactive ?? (() => false),
        notice: o.notice ?? (() => undefined),
        verbose: o.verbose ?? (() => undefined),
        command: o.command,
      });
    })());
  return {
    ...loadedOnUse('keyring', describeKeyring(platform), real),
    probe: async (signal) => (await real()).probe(signal),
    prepareWrite: async (signal) => (await real()).prepareWrite(signal),
  };
}

export function commandStore(readCommand: string, storeCommand: string | undefined, o: KeyStoreOptions): KeyStore {
  return loadedOnUse('command', describeCommand(readCommand), async () => {
    const [{ CommandStore }, { boundsFrom }] = await Promise.all([import('./command-store.js'), import('./key-store.js')]);
    return new CommandStore(readCommand, storeCommand, {
      env: o.env,
      bounds: boundsFrom(o.env),
      clock: o.clock ?? realClock,
      onStderr: o.onCommandStderr ?? (() => undefined),
      command: o.command,
      notice: o.notice ?? (() => undefined),
      onSecret: o.onSecret ?? (() => undefined),
    });
  });
}

export function fileStore(config: ConfigStore, profile: string): KeyStore {
  return loadedOnUse('file', describeFile(config.path), async () => new (await import('./file-store.js')).FileStore(config, profile));
}

/** The profile's store as its config records it; undefined when the profile keeps no key. */
export function openKeyStore(profile: Readonly<Profile>, name: string, config: ConfigStore, o: KeyStoreOptions): KeyStore | undefined {
  const kind = recordedKind(profile);
  if (kind === 'file') return profile['api-key'] === undefined ? undefined : fileStore(config, name);
  if (kind === 'command') {
    const read = profile['key-command'];
    return read === undefined ? undefined : commandStore(read, profile['key-store-command'], o);
  }
  if (kind === 'keyring') {
    const entry = recordedEntry(profile);
    return entry === undefined ? undefined : keyringStore(entry, name, config.path, o);
  }
  return undefined;
}

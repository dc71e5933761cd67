// The store a profile's config names, opened with what the run gives it (env, clock, whether a
// person can answer an unlock prompt, where notices go). Stores are built here alone.
import type { Env } from '../../platform/env.js';
import { realClock } from '../../platform/clock.js';
import { currentUid, hostPlatform } from '../../platform/host.js';
import type { ConfigStore, Profile } from '../store.js';
import { CommandStore } from './command-store.js';
import { FileStore } from './file-store.js';
import { boundsFrom, type DeadlineClock, type KeyStore } from './key-store.js';
import { entryLabel, type KeyringEntry } from './keyring-entry.js';
import { KeyringStore } from './keyring-store.js';
import { recordedEntry, recordedKind } from './profile-store.js';

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

export function keyringStore(entry: KeyringEntry, profile: string, configPath: string, o: KeyStoreOptions): KeyringStore {
  return new KeyringStore(entry, entryLabel(entry, profile, configPath), {
    env: o.env,
    platform: o.platform ?? hostPlatform().os,
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
}

export function commandStore(readCommand: string, storeCommand: string | undefined, o: KeyStoreOptions): CommandStore {
  return new CommandStore(readCommand, storeCommand, {
    env: o.env,
    bounds: boundsFrom(o.env),
    clock: o.clock ?? realClock,
    onStderr: o.onCommandStderr ?? (() => undefined),
    command: o.command,
  });
}

/** The profile's store as its config records it; undefined when the profile keeps no key. */
export function openKeyStore(profile: Readonly<Profile>, name: string, config: ConfigStore, o: KeyStoreOptions): KeyStore | undefined {
  const kind = recordedKind(profile);
  if (kind === 'file') return profile['api-key'] === undefined ? undefined : new FileStore(config, name);
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

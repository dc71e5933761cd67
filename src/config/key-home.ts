// Where a profile's key is written and forgotten: one place for `auth login`, `keys create --save`,
// `keys rotate` and `auth logout`. The key goes into its store and is read back, all under the
// config's lock (concurrent logins and rotations lose nothing), and only then does the config
// file record which store holds it, in one atomic rewrite that also drops a plaintext copy.
import { CrawlError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import type { Settings } from './settings.js';
import { ConfigStore, type Profile } from './store.js';
import { KeyringUnavailableError, KeyringUnreachableError, KeyStoreError, type KeyStore, type KeyStoreKind } from './key-stores/key-store.js';
import { newKeyringEntry, type KeyringEntry } from './key-stores/keyring-entry.js';
import { commandStore, fileStore, keyringStore, type KeyringHome } from './key-stores/open.js';
import { recordedEntry, recordedKind } from './key-stores/profile-store.js';

/**
 * Which store a key goes to: `keyring` or `file` as named (--store, --insecure-storage; a named
 * keyring never falls back); `default`: the keyring, or the config file when no keyring exists here
 * at all (see mayFallBack); `current`: where the profile's key lives now (a profile without one: `default`).
 */
export type StoreChoice = 'keyring' | 'file' | 'default' | 'current';

/** The store `choice` sends a key to, for a profile whose key is in `before` now. */
function targetKind(choice: StoreChoice, before: KeyStoreKind | undefined): KeyStoreKind {
  if (choice === 'current') return before ?? 'keyring';
  return choice === 'default' ? 'keyring' : choice;
}

/**
 * The one rule of a key that goes to the plaintext config file in place of the keyring: no store
 * was named, the profile keeps no key yet (or keeps it in the file already), and no keyring exists
 * here at all (KeyringUnavailableError). A profile whose key is in the keyring or a secret manager
 * moves to the file only when asked (--insecure-storage, --store file), and a keyring crawl cannot
 * reach (KeyringUnreachableError) or that fails is never a reason.
 */
function mayFallBack(choice: StoreChoice, before: KeyStoreKind | undefined, error: unknown): error is KeyringUnavailableError {
  return error instanceof KeyringUnavailableError && (choice === 'default' || choice === 'current') && (before === undefined || before === 'file');
}

/**
 * A keyring that cannot be reached from here, for a profile that keeps its key there or in a secret
 * manager: an error naming the profile's store, with the keyring's ways forward (its hint), never
 * a move to the plaintext file.
 */
function notMoved(error: unknown, profile: string, before: KeyStoreKind | undefined, keyring: KeyStore): unknown {
  if (!(error instanceof KeyringUnavailableError || error instanceof KeyringUnreachableError)) return error;
  if (before !== 'keyring' && before !== 'command') return error;
  const kept = before === 'keyring' ? `the ${keyring.describe()}` : 'a secret manager (key-command)';
  return new KeyStoreError(
    `the ${keyring.describe()} cannot be reached here: ${error.reason}; profile "${profile}" keeps its key in ${kept}, and it moves to the plaintext config file only when asked`,
    error.hint,
    error,
  );
}

/** The profile's key is no longer the one a command set out to replace (another crawl changed it). */
export class KeyChangedError extends CrawlError {
  constructor(path: string, profile: string) {
    super(`the key of profile "${profile}" in ${path} was changed by another crawl process meanwhile`, ExitCode.failure);
    this.name = 'ProfileKeyChangedError';
  }
}

export interface SaveOptions {
  store: StoreChoice;
  /** Store only if the profile still holds this key (checked under the lock). */
  replaces?: string;
  /** The base URL the key belongs to (normalised), recorded with it; undefined: leave the profile's. */
  baseHref?: string;
  signal: AbortSignal;
}

export interface SaveResult {
  profile: string;
  path: string;
  /** Where the key now lives. */
  store: KeyStore;
  /** Why the config file was used when the default was the keyring. */
  fellBackBecause?: string;
  baseUrlChange?: { from: string; to: string };
  /** The store the key left (the keyring entry is removed, a plaintext copy dropped). */
  movedFrom?: KeyStoreKind;
  /** A copy the move could not remove (said to the user, never silent). */
  leftBehind?: string;
}

export async function saveProfileKey(settings: Settings, key: string, o: SaveOptions): Promise<SaveResult> {
  const profile = settings.profile().value;
  const config = settings.store;
  const options = settings.keyOptions;
  let result: SaveResult | undefined;
  let oldEntry: KeyringEntry | undefined;
  await config.transact(profile, async (current) => {
    const before = recordedKind(current);
    if (o.replaces !== undefined) await checkStillHolds(settings, current, profile, o.replaces, o.signal);
    let kind = targetKind(o.store, before);
    let fellBackBecause: string | undefined;
    let store: KeyStore;
    let entry: KeyringEntry | undefined;
    if (kind === 'keyring') {
      entry = recordedEntry(current) ?? newKeyringEntry(originOf(o.baseHref ?? current['base-url'] ?? settings.baseUrl()?.value), profile);
      const keyring = keyringStore(entry, profile, config.path, options);
      try {
        await keyring.write(key, o.signal);
        if ((await keyring.read(o.signal)) !== key) throw new KeyStoreError(`the ${keyring.describe()} does not hold the new key after writing it`);
        store = keyring;
      } catch (error) {
        if (!mayFallBack(o.store, before, error)) throw notMoved(error, profile, before, keyring);
        kind = 'file';
        entry = undefined;
        fellBackBecause = error.reason;
        store = fileStore(config, profile);
      }
    } else if (kind === 'command') {
      const read = current['key-command'];
      if (read === undefined) throw new KeyStoreError(`profile "${profile}" has no key-command`);
      const commands = commandStore(read, current['key-store-command'], options);
      await commands.write(key, o.signal);
      // The second run of key-command in this run, and the only other one: the read back.
      if ((await commands.read(o.signal)) !== key) {
        throw new KeyStoreError(`key-command (${commands.describe().slice('command: '.length)}) does not print the new key after key-store-command stored it`);
      }
      store = commands;
    } else {
      store = fileStore(config, profile);
    }
    const old = recordedEntry(current);
    if (before === 'keyring' && old !== undefined && (kind !== 'keyring' || old.account !== entry?.account || old.service !== entry.service)) oldEntry = old;
    let baseUrlChange: SaveResult['baseUrlChange'];
    const change = (p: Profile): void => {
      // A plaintext key records itself: a profile with `api-key` and no `key-store` is the file store,
      // as every profile written before the keyring is.
      if (kind === 'file') {
        p['api-key'] = key;
        delete p['key-store'];
      } else {
        p['key-store'] = kind;
        delete p['api-key'];
      }
      if (kind === 'keyring' && entry) {
        p['keyring-service'] = entry.service;
        p['keyring-account'] = entry.account;
      } else {
        delete p['keyring-service'];
        delete p['keyring-account'];
      }
      if (o.baseHref === undefined) return;
      const was = p['base-url'];
      if (was !== undefined && sameBaseUrl(was, o.baseHref)) return;
      if (was !== undefined) baseUrlChange = { from: was, to: o.baseHref };
      p['base-url'] = o.baseHref;
    };
    result = {
      profile,
      path: config.path,
      store,
      ...(fellBackBecause === undefined ? {} : { fellBackBecause }),
      ...(before !== undefined && before !== kind ? { movedFrom: before } : {}),
    };
    return [
      (p: Profile) => {
        change(p);
        if (baseUrlChange && result) result.baseUrlChange = baseUrlChange;
      },
      undefined,
    ];
  });
  settings.resetKey();
  const saved = result as SaveResult | undefined;
  if (saved === undefined) throw new CrawlError('the key was not stored', ExitCode.failure);
  if (saved.store.kind === 'file') {
    let readBack: string | undefined;
    try {
      readBack = new ConfigStore(config.path).profile(profile)['api-key'];
    } catch {
      readBack = undefined;
    }
    if (readBack !== key) throw new CrawlError(`the config file ${config.path} does not hold the new key after writing it`, ExitCode.failure);
  }
  if (oldEntry !== undefined) {
    // The config no longer points at it: a copy left there is only a copy, said so, never read.
    const stale = keyringStore(oldEntry, profile, config.path, options);
    try {
      await stale.erase(o.signal);
    } catch (error) {
      saved.leftBehind = `the old key's entry in the ${stale.describe()} (${oldEntry.service}, ${oldEntry.account}) could not be removed: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
  return saved;
}

/**
 * Before a person types a key for `auth login`: whether the store it would go to can take it now,
 * so that a keyring that cannot be reached, or stays locked, is said before the key is asked for,
 * not after. A locked keyring is unlocked now where a person can answer its dialog. Resolves when
 * the save can go ahead (a fall back to the file store the rule allows included); rejects with
 * the error the save would give.
 */
export async function prepareKeyHome(settings: Settings, store: StoreChoice, signal: AbortSignal): Promise<void> {
  const profile = settings.profile().value;
  // The profile as the file holds it: a login may be what creates it.
  const current = settings.store.read().profiles[profile] ?? {};
  const before = recordedKind(current);
  if (targetKind(store, before) !== 'keyring') return;
  const keyring = probeStore(settings, current, profile);
  try {
    await keyring.prepareWrite(signal);
  } catch (error) {
    if (mayFallBack(store, before, error)) return;
    throw notMoved(error, profile, before, keyring);
  }
}

/**
 * Whether a keyring is here to take the profile's key (`auth status`'s advice to move a plaintext
 * key there): reached, and able to store it, found without prompting (a locked one counts: a
 * login on a terminal unlocks it). False where it cannot be reached or fails.
 */
export async function keyringReachable(settings: Settings, signal: AbortSignal): Promise<boolean> {
  const profile = settings.profile().value;
  try {
    await probeStore(settings, settings.store.read().profiles[profile] ?? {}, profile).probe(signal);
    return true;
  } catch (error) {
    if (signal.aborted && error === signal.reason) throw error;
    return false;
  }
}

/** The keyring the profile's key would go to: its entry, or a new one (a probe touches no entry). */
function probeStore(settings: Settings, current: Readonly<Profile>, profile: string): KeyringHome {
  const entry = recordedEntry(current) ?? newKeyringEntry(originOf(current['base-url'] ?? settings.baseUrl()?.value), profile);
  return keyringStore(entry, profile, settings.store.path, settings.keyOptions);
}

/**
 * `config set key-command`: the secret manager becomes the profile's store, and a key kept
 * elsewhere (plaintext, a keyring entry) is dropped, so no copy lingers, but only once the
 * command is seen to print that very key: else it would be lost (nothing is changed then).
 */
export async function useKeyCommand(settings: Settings, command: string, signal: AbortSignal): Promise<{ droppedFrom?: string; leftBehind?: string }> {
  const profile = settings.profile().value;
  const before = settings.keyStore();
  if (before !== undefined && before.kind !== 'command') {
    const held = await before.read(signal);
    if (held !== undefined) {
      settings.keyOptions.onSecret?.(held);
      const printed = await commandStore(command, settings.stored()['key-store-command'], settings.keyOptions).read(signal);
      if (printed !== held) {
        throw new CrawlError(`the new key-command prints another key than the one profile "${profile}" keeps in the ${before.describe()}; nothing was changed`, ExitCode.failure, {
          hint: 'put that key in the secret manager first (`crawl auth token` prints it), or forget it with `crawl auth logout`, then set key-command again',
        });
      }
    }
  }
  await settings.store.update(profile, (p) => {
    p['key-command'] = command;
    p['key-store'] = 'command';
    delete p['api-key'];
    delete p['keyring-service'];
    delete p['keyring-account'];
  });
  settings.resetKey();
  if (before === undefined || before.kind === 'command') return {};
  const droppedFrom = before.describe();
  if (before.kind !== 'keyring') return { droppedFrom };
  try {
    await before.erase(signal);
    return { droppedFrom };
  } catch (error) {
    return { droppedFrom, leftBehind: `its old entry in the ${droppedFrom} could not be removed: ${error instanceof Error ? error.message : String(error)}` };
  }
}

export interface ForgetResult {
  profile: string;
  /** The store the key was in, or undefined when the profile had none. */
  kind: KeyStoreKind | undefined;
  description: string | undefined;
  /** The store held a key that is now gone (for a command store: false, the secret manager is left alone). */
  removed: boolean;
  /** Why the keyring entry could not be removed (locked, none here): the profile forgot it all the same. */
  leftBehind?: string;
}

/** `auth logout`: the key removed from its store (a keyring entry deleted), and the profile's record of it. */
export async function forgetProfileKey(settings: Settings, signal: AbortSignal): Promise<ForgetResult> {
  const profile = settings.profile().value;
  const stored = settings.stored();
  const kind = recordedKind(stored);
  if (kind === undefined) return { profile, kind, description: undefined, removed: false };
  let removed = false;
  let description: string | undefined;
  let leftBehind: string | undefined;
  await settings.store.transact(profile, async (current) => {
    const now = recordedKind(current);
    const store = settings.keyStore();
    description = store?.describe();
    if (now === 'keyring' && store) {
      // A keyring that is locked or not here (a synced config) must not keep the profile from forgetting it.
      try {
        removed = await store.erase(signal);
      } catch (error) {
        if (!(error instanceof KeyStoreError)) throw error;
        leftBehind = error.message;
      }
    } else if (now === 'file') removed = current['api-key'] !== undefined;
    return (p: Profile) => {
      for (const name of ['api-key', 'key-store', 'keyring-service', 'keyring-account', 'key-command', 'key-store-command'] as const) delete p[name];
    };
  });
  settings.resetKey();
  return { profile, kind, description, removed, ...(leftBehind === undefined ? {} : { leftBehind }) };
}

async function checkStillHolds(settings: Settings, current: Readonly<Profile>, profile: string, expected: string, signal: AbortSignal): Promise<void> {
  const kind = recordedKind(current);
  let held: string | undefined;
  if (kind === 'file') held = current['api-key'];
  else if (kind === 'keyring') {
    const entry = recordedEntry(current);
    held = entry === undefined ? undefined : await keyringStore(entry, profile, settings.store.path, settings.keyOptions).read(signal);
  } else {
    // A secret manager cannot be locked with the config: a key command is not run a third time.
    return;
  }
  if (held !== expected) throw new KeyChangedError(settings.store.path, profile);
}

function originOf(base: string | undefined): string {
  if (base === undefined) return 'unknown';
  try {
    return new URL(base).origin;
  } catch {
    return 'unknown';
  }
}

function sameBaseUrl(stored: string, href: string): boolean {
  try {
    return new URL(stored).href === href;
  } catch {
    return false;
  }
}

// The one module that loads the native keyring binding (@napi-rs/keyring, keyring-rs): the macOS
// Keychain and the Windows Credential Manager. Loaded only when a key lives there. On Linux the
// binding is pinned to the Secret Service: its default would fall back silently to the kernel's
// keyutils store, which a reboot empties.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { AsyncEntry as AsyncEntryType } from '@napi-rs/keyring';
import type { KeyringEntry } from './keyring-entry.js';

type Binding = { AsyncEntry: typeof AsyncEntryType };

/**
 * The binding could not be loaded (its build for this system is not installed: `npm install
 * --omit=optional`, an architecture filter, x64 Node under Rosetta). On macOS and Windows a
 * keystore is always there: the caller reports it as a keyring crawl cannot reach.
 */
export class BindingLoadError extends Error {
  constructor(cause: unknown) {
    super(cause instanceof Error ? (cause.message.split('\n')[0] ?? '') : String(cause));
    this.name = 'BindingLoadError';
  }
}

const loaded = new Map<string, Promise<Binding>>();

/** The binding, from where crawl is installed, or required from the folder `from` (Platform.keyringBindingFrom). */
export function loadBinding(from: string | undefined): Promise<Binding> {
  const where = from ?? '';
  let binding = loaded.get(where);
  if (binding === undefined) {
    const loading: Promise<unknown> =
      from === undefined ? import('@napi-rs/keyring') : Promise.resolve().then(() => createRequire(join(from, 'package.json'))('@napi-rs/keyring') as unknown);
    binding = loading.then(
      (module) => module as Binding,
      (error: unknown) => {
        throw new BindingLoadError(error);
      },
    );
    loaded.set(where, binding);
  }
  return binding;
}

async function entryOf(entry: KeyringEntry, from: string | undefined): Promise<AsyncEntryType> {
  const { AsyncEntry } = await loadBinding(from);
  return new AsyncEntry(entry.service, entry.account, { linux: { store: 'secret-service' } });
}

export async function read(entry: KeyringEntry, signal: AbortSignal, from?: string): Promise<string | undefined> {
  return (await (await entryOf(entry, from)).getPassword(signal)) ?? undefined;
}

export async function write(entry: KeyringEntry, key: string, signal: AbortSignal, from?: string): Promise<void> {
  await (await entryOf(entry, from)).setPassword(key, signal);
}

export async function erase(entry: KeyringEntry, signal: AbortSignal, from?: string): Promise<boolean> {
  return (await entryOf(entry, from)).deleteCredential(signal);
}

// The one module that loads the native keyring binding (@napi-rs/keyring, keyring-rs): the macOS
// Keychain and the Windows Credential Manager. Loaded only when a key lives there. On Linux the
// binding is pinned to the Secret Service: its default would fall back silently to the kernel's
// keyutils store, which a reboot empties.
import type { AsyncEntry as AsyncEntryType } from '@napi-rs/keyring';
import { KeyringUnavailableError } from './key-store.js';
import type { KeyringEntry } from './keyring-entry.js';

type Binding = { AsyncEntry: typeof AsyncEntryType };

let binding: Promise<Binding> | undefined;

function load(): Promise<Binding> {
  binding ??= import('@napi-rs/keyring').then(
    (module) => module as unknown as Binding,
    (error: unknown) => {
      throw new KeyringUnavailableError(`the keyring binding cannot load on this system (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`);
    },
  );
  return binding;
}

async function entryOf(entry: KeyringEntry): Promise<AsyncEntryType> {
  const { AsyncEntry } = await load();
  return new AsyncEntry(entry.service, entry.account, { linux: { store: 'secret-service' } });
}

export async function read(entry: KeyringEntry, signal: AbortSignal): Promise<string | undefined> {
  return (await (await entryOf(entry)).getPassword(signal)) ?? undefined;
}

export async function write(entry: KeyringEntry, key: string, signal: AbortSignal): Promise<void> {
  await (await entryOf(entry)).setPassword(key, signal);
}

export async function erase(entry: KeyringEntry, signal: AbortSignal): Promise<boolean> {
  return (await entryOf(entry)).deleteCredential(signal);
}

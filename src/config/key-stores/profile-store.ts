// Which store holds a profile's key, as its config file records it: `key-store` names it; a
// profile written before stores existed is read as what it holds (a plaintext `api-key`, or a
// `key-command`). Only that store is read: no probing, no plaintext copy shadowing a keyring entry.
import type { Profile } from '../store.js';
import type { KeyStoreKind } from './key-store.js';
import type { KeyringEntry } from './keyring-entry.js';

export function recordedKind(profile: Readonly<Profile>): KeyStoreKind | undefined {
  const named = profile['key-store'];
  if (named === 'keyring' || named === 'file' || named === 'command') return named;
  if (profile['api-key'] !== undefined) return 'file';
  if (profile['key-command'] !== undefined) return 'command';
  return undefined;
}

export function recordedEntry(profile: Readonly<Profile>): KeyringEntry | undefined {
  const service = profile['keyring-service'];
  const account = profile['keyring-account'];
  return service && account ? { service, account } : undefined;
}

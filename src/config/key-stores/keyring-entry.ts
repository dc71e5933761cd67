// The names of a profile's keyring entry: stable, documented (docs/key-storage.md), and recorded in
// the config file so that the entry is found from wherever the file is.
import { randomBytes } from 'node:crypto';

export interface KeyringEntry {
  /** `crawl:<origin>`: the service the key belongs to, as the keyring shows it. */
  service: string;
  /** `<profile>:<id>`: the id is random, made once per profile and config file, so two config folders never share an entry. */
  account: string;
}

export function newKeyringEntry(origin: string, profile: string): KeyringEntry {
  return { service: `crawl:${origin}`, account: `${profile}:${randomBytes(6).toString('hex')}` };
}

/** What a person sees in the keyring's own app (Passwords and Keys, Keychain Access). */
export function entryLabel(entry: KeyringEntry, profile: string, configPath: string): string {
  return `crawl API key for ${entry.service.slice('crawl:'.length)} (profile "${profile}", ${configPath})`;
}

/** The Secret Service attributes of an entry: keyring-rs's own, so either side finds the other's entries. */
export function entryAttributes(entry: KeyringEntry): Record<string, string> {
  return { service: entry.service, username: entry.account };
}

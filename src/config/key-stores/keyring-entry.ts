// The names of a profile's keyring entry: stable, documented (docs/key-storage.md), and recorded in
// the config file so that the entry is found from wherever the file is.

export interface KeyringEntry {
  /** `crawl:<origin>`: the service the key belongs to, as the keyring shows it. */
  service: string;
  /** `<profile>:<id>`: the id is random, made once per profile and config file, so two config folders never share an entry. */
  account: string;
}

export function newKeyringEntry(origin: string, profile: string): KeyringEntry {
  // Web Crypto, reached only when an entry is made: node:crypto stays out of every other command's start-up.
  const id = Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(6))).toString('hex');
  return { service: `crawl:${origin}`, account: `${profile}:${id}` };
}

/** What a person sees in the keyring's own app (Passwords and Keys, Keychain Access). */
export function entryLabel(entry: KeyringEntry, profile: string, configPath: string): string {
  return `crawl API key for ${entry.service.slice('crawl:'.length)} (profile "${profile}", ${configPath})`;
}

/** The Secret Service attributes of an entry: keyring-rs's own, so either side finds the other's entries. */
export function entryAttributes(entry: KeyringEntry): Record<string, string> {
  return { service: entry.service, username: entry.account };
}

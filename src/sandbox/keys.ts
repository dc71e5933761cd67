// API keys: creation, listing, revocation and the Bearer check. Revocation is permanent and is
// seen by the very next request, because every request looks the key up again.
import { randomBase62, randomHex } from './random.js';

export const KEY_PREFIX = 'crk_';
const PREFIX_LENGTH = 12;
/** Longer than any listed prefix: a whole key, one of ours or another service's. */
const KEY_SHAPE = /crk_[A-Za-z0-9]{16,}/g;
export const MAX_KEY_NAME = 100;

export interface KeyEntry {
  id: string;
  name: string;
  key: string;
  keyPrefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revoked: boolean;
}

export type AuthResult =
  | { ok: true; entry: KeyEntry }
  | { ok: false; error: 'Missing API key' | 'Invalid or revoked API key' };

export class KeyStore {
  private readonly byId = new Map<string, KeyEntry>();
  private readonly byValue = new Map<string, KeyEntry>();

  /** Forgets every key, revoked ones included. */
  clear(): void {
    this.byId.clear();
    this.byValue.clear();
  }

  create(name: string, value: string = KEY_PREFIX + randomBase62(40), keyPrefix: string = value.slice(0, PREFIX_LENGTH)): KeyEntry {
    let id = 'key_' + randomHex(12);
    while (this.byId.has(id)) id = 'key_' + randomHex(12);
    const entry: KeyEntry = {
      id,
      name,
      key: value,
      keyPrefix,
      createdAt: new Date().toISOString(),
      lastUsedAt: null,
      revoked: false,
    };
    this.byId.set(id, entry);
    this.byValue.set(value, entry);
    return entry;
  }

  /** Active keys in creation order (Map keeps insertion order). */
  active(): KeyEntry[] {
    return [...this.byId.values()].filter((entry) => !entry.revoked);
  }

  /** False when the id is unknown or already revoked. */
  revoke(id: string): boolean {
    const entry = this.byId.get(id);
    if (!entry || entry.revoked) return false;
    entry.revoked = true;
    return true;
  }

  /** Side-effect free, so it can label a request before a fault decides its fate. */
  check(authorization: string | undefined): AuthResult {
    const header = authorization?.trim() ?? '';
    if (header === '' || /^bearer$/i.test(header)) return { ok: false, error: 'Missing API key' };
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    const entry = match?.[1] === undefined ? undefined : this.byValue.get(match[1]);
    if (!entry || entry.revoked) return { ok: false, error: 'Invalid or revoked API key' };
    return { ok: true, entry };
  }

  touch(entry: KeyEntry): void {
    entry.lastUsedAt = new Date().toISOString();
  }

  /** Whose key a request carried, revoked or not, for the log; nothing of the key itself. */
  owner(authorization: string | undefined): KeyEntry | undefined {
    const match = /^Bearer\s+(\S+)$/i.exec(authorization?.trim() ?? '');
    return match?.[1] === undefined ? undefined : this.byValue.get(match[1]);
  }

  /**
   * `text` with every key this sandbox ever issued, and anything shaped like one, replaced by
   * `[redacted]`: a script that put a key in a URL must not see it in the log.
   */
  redact(text: string): string {
    let out = text;
    for (const value of this.byValue.keys()) {
      for (const form of new Set([value, encodeURIComponent(value)])) out = out.split(form).join('[redacted]');
    }
    return out.replace(KEY_SHAPE, '[redacted]');
  }
}

export function listView(entry: KeyEntry) {
  return {
    id: entry.id,
    name: entry.name,
    keyPrefix: entry.keyPrefix,
    lastUsedAt: entry.lastUsedAt,
    createdAt: entry.createdAt,
  };
}

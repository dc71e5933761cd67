import type { ApiKey } from './keys.js';
import { shapedLike } from '../text/keys.js';

export type Resolution =
  | { kind: 'found'; key: ApiKey }
  /** `byName`: every candidate is named so (not just a prefix match). */
  | { kind: 'ambiguous'; candidates: ApiKey[]; byName: boolean }
  | { kind: 'missing' };

/**
 * An argument of `keys revoke` (npm token revoke's style): an exact id, or else the beginning of a
 * listed keyPrefix or a key's exact name, when exactly one key answers to it either way. An exact
 * id wins over a prefix or a name that happens to equal it; a prefix of one key that is the name
 * of another is ambiguous, never a guess.
 */
export function resolveKey(keys: readonly ApiKey[], arg: string): Resolution {
  const byId = keys.find((k) => k.id === arg);
  if (byId) return { kind: 'found', key: byId };
  const named = keys.filter((k) => k.name === arg);
  const candidates = keys.filter((k) => named.includes(k) || (typeof k.keyPrefix === 'string' && k.keyPrefix.startsWith(arg)));
  if (candidates.length === 1 && candidates[0]) return { kind: 'found', key: candidates[0] };
  if (candidates.length > 1) return { kind: 'ambiguous', candidates, byName: candidates.every((k) => named.includes(k)) };
  return { kind: 'missing' };
}

/**
 * An argument that is a key rather than an id or a prefix, judged without the list: equal to a key
 * this run knows (the configured one, any other secret), or of the configured key's shape (the
 * same `<letters>_` start, and at least as long).
 */
export function isKnownKeyOrShape(arg: string, knownKeys: Iterable<string>, configured: string | undefined): boolean {
  for (const key of knownKeys) if (key !== '' && arg === key) return true;
  return configured !== undefined && shapedLike(arg, configured);
}

/** An argument that is longer than a listed prefix and begins with it is a full key pasted by mistake. */
export function looksLikeFullKey(keys: readonly ApiKey[], arg: string): boolean {
  return keys.some((k) => typeof k.keyPrefix === 'string' && k.keyPrefix !== '' && arg.length > k.keyPrefix.length && arg.startsWith(k.keyPrefix));
}

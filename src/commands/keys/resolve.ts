import type { ApiKey } from '../../api/keys.js';

export type Resolution =
  | { kind: 'found'; key: ApiKey }
  | { kind: 'ambiguous'; candidates: ApiKey[] }
  | { kind: 'missing' };

/**
 * An argument of `keys revoke` (npm token revoke's style): an exact id, or else the beginning of
 * exactly one listed keyPrefix. An exact id wins over a prefix that happens to equal it.
 */
export function resolveKey(keys: readonly ApiKey[], arg: string): Resolution {
  const byId = keys.find((k) => k.id === arg);
  if (byId) return { kind: 'found', key: byId };
  const candidates = keys.filter((k) => typeof k.keyPrefix === 'string' && k.keyPrefix.startsWith(arg));
  if (candidates.length === 1 && candidates[0]) return { kind: 'found', key: candidates[0] };
  if (candidates.length > 1) return { kind: 'ambiguous', candidates };
  return { kind: 'missing' };
}

/** An argument that is longer than a listed prefix and begins with it is a full key pasted by mistake. */
export function looksLikeFullKey(keys: readonly ApiKey[], arg: string): boolean {
  return keys.some((k) => typeof k.keyPrefix === 'string' && k.keyPrefix !== '' && arg.length > k.keyPrefix.length && arg.startsWith(k.keyPrefix));
}

import type { HttpClient } from '../http/client.js';
import { isRecord, malformed } from './shape.js';

/** A key as listed by GET /api/keys; unknown fields pass through. */
export interface ApiKey {
  id: string;
  name?: unknown;
  keyPrefix?: unknown;
  lastUsedAt?: unknown;
  createdAt?: unknown;
  [field: string]: unknown;
}

export interface KeyList {
  keys: ApiKey[];
  raw: string;
}

export async function listKeys(http: HttpClient): Promise<KeyList> {
  const { response, body } = await http.requestJson({ method: 'GET', path: ['api', 'keys'] });
  const what = `GET ${response.url.pathname}`;
  if (!isRecord(body)) throw malformed(what, 'expected a JSON object');
  if (!Array.isArray(body.keys)) throw malformed(what, 'no "keys" array in the body');
  const keys = body.keys.filter(isRecord).filter((k): k is ApiKey => typeof k.id === 'string');
  return { keys, raw: response.text };
}

/** The listed key that the given full key belongs to: its keyPrefix begins the key. */
export function keyInUse(keys: readonly ApiKey[], fullKey: string | undefined): ApiKey | undefined {
  if (!fullKey) return undefined;
  const matches = keys.filter((k) => typeof k.keyPrefix === 'string' && k.keyPrefix !== '' && fullKey.startsWith(k.keyPrefix));
  // The longest prefix is the most specific claim, should several ever match.
  return matches.sort((a, b) => String(b.keyPrefix).length - String(a.keyPrefix).length)[0];
}

import { ExitCode } from '../exit-codes.js';
import type { HttpClient, HttpResponse } from '../http/client.js';
import { answeredUnread, HttpStatusError } from '../http/errors.js';
import { isUsableKey } from '../text/keys.js';
import { REPLACEMENT } from '../text/redact.js';
import { OutcomeUnknownError, UnusableKeyError } from './key-errors.js';
import type { ApiKey } from './model.js';
import { isRecord, malformed } from './shape.js';

export { OutcomeUnknownError, UnusableKeyError };
export type { ApiKey };

export interface KeyList {
  keys: ApiKey[];
  raw: string;
  /** The 2xx status it came with. */
  status: number;
}

export async function listKeys(http: HttpClient, options: { sameOriginOnly?: boolean } = {}): Promise<KeyList> {
  const spec = { method: 'GET', path: ['api', 'keys'], ...(options.sameOriginOnly ? { sameOriginOnly: true } : {}) } as const;
  const { response, body } = await http.requestJson(spec);
  const what = `GET ${response.url.pathname}`;
  if (!isRecord(body)) throw malformed(what, 'expected a JSON object');
  if (!Array.isArray(body.keys)) throw malformed(what, 'no "keys" array in the body');
  const keys = body.keys.filter(isRecord).filter((k): k is ApiKey => typeof k.id === 'string');
  return { keys, raw: response.text, status: response.status };
}

/**
 * Which listed key a full key is. The list shows only prefixes, so a key is the one in use when
 * its keyPrefix begins the full key; two keys with the same keyPrefix, or one prefix beginning
 * another, both match, and then nobody can tell which of them is in use: `ambiguous`. Whatever
 * depends on the answer (marking, revoking, rotating) must treat every candidate as possibly in use.
 */
export type KeyInUse =
  | { kind: 'unique'; key: ApiKey }
  | { kind: 'none' }
  | { kind: 'ambiguous'; candidates: ApiKey[] };

export function identifyKeyInUse(keys: readonly ApiKey[], fullKey: string | undefined): KeyInUse {
  if (!fullKey) return { kind: 'none' };
  const candidates = keys.filter((k) => typeof k.keyPrefix === 'string' && k.keyPrefix !== '' && fullKey.startsWith(k.keyPrefix));
  if (candidates.length === 0) return { kind: 'none' };
  if (candidates.length === 1 && candidates[0]) return { kind: 'unique', key: candidates[0] };
  return { kind: 'ambiguous', candidates };
}

/** The keys that are, or may be, the key in use. */
export function mayBeInUse(found: KeyInUse): ApiKey[] {
  if (found.kind === 'unique') return [found.key];
  if (found.kind === 'ambiguous') return found.candidates;
  return [];
}

export type KeyVerdict = { accepted: true; list: KeyList } | { accepted: false; status: number };

/**
 * Whether the service accepts the key of `http`: one GET /api/keys with it. 401/403 mean no; any
 * other failure is not an answer and is thrown as it is, and so is a 200 that is not a key list
 * (a web site at the base URL answers 200 to anything). Only the base URL's own origin can
 * answer: the key is never sent elsewhere, so an answer from another origin (after a redirect)
 * proves nothing either way, and the HTTP layer refuses to follow one.
 */
export async function verifyKey(http: HttpClient): Promise<KeyVerdict> {
  try {
    const list = await listKeys(http, { sameOriginOnly: true });
    return { accepted: true, list };
  } catch (error) {
    if (error instanceof HttpStatusError && (error.status === 401 || error.status === 403)) {
      return { accepted: false, status: error.status };
    }
    throw error;
  }
}

/** The answer to POST /api/keys: the only time the service hands the full key over. */
export interface CreatedKey {
  key: string;
  prefix: string | undefined;
  name: string | undefined;
  warning: string | undefined;
  raw: string;
}

const CHECK_CREATED = 'check with `crawl keys list` before creating another one';

/**
 * POST /api/keys, sent once: a retry could create a second key the user never sees. Once the
 * request is on the wire, the HTTP layer reads its answer even after Ctrl-C, so the key the
 * service made is known (and the caller hands it over) unless the answer itself is lost.
 */
export async function createKey(http: HttpClient, name: string): Promise<CreatedKey> {
  let response: HttpResponse;
  try {
    response = await http.request({ method: 'POST', path: ['api', 'keys'], body: { name }, retry: false });
  } catch (error) {
    if (answeredUnread(error)) {
      throw new OutcomeUnknownError(`${error.message}; a key may have been created`, error.exitCode, CHECK_CREATED);
    }
    throw error;
  }
  let body: unknown;
  try {
    body = JSON.parse(response.text);
  } catch {
    body = undefined;
  }
  if (!isRecord(body) || typeof body.key !== 'string' || body.key === '') {
    throw new OutcomeUnknownError(
      `malformed response to POST ${response.url.pathname} (HTTP ${response.status}): no key in the body; a key may have been created`,
      ExitCode.failure,
      CHECK_CREATED,
    );
  }
  if (!isUsableKey(body.key)) throw new UnusableKeyError(name, body.key, 'it holds characters that no Authorization header can carry (control characters, white space or non-ASCII)');
  // A key of this run echoed where the new one should be was redacted by the HTTP layer: the
  // marker is all that is left, and stored it would replace a working key.
  if (body.key.includes(REPLACEMENT)) throw new UnusableKeyError(name, body.key, 'in place of a new key it holds a key this run already uses (removed from the answer)');
  return {
    key: body.key,
    prefix: typeof body.prefix === 'string' ? body.prefix : undefined,
    name: typeof body.name === 'string' ? body.name : undefined,
    warning: typeof body.warning === 'string' ? body.warning : undefined,
    raw: response.text,
  };
}

export interface RevokedKey {
  /** The service's body when it is JSON (its shape is not documented), else a stand-in naming the key. */
  body: unknown;
  raw: string;
}

/** DELETE /api/keys/:id, sent once. */
export async function revokeKey(http: HttpClient, id: string): Promise<RevokedKey> {
  let response: HttpResponse;
  try {
    response = await http.request({ method: 'DELETE', path: ['api', 'keys', id], retry: false });
  } catch (error) {
    if (answeredUnread(error)) {
      throw new OutcomeUnknownError(
        `${error.message}; the key may have been revoked`,
        error.exitCode,
        'check with `crawl keys list`: a key that is no longer listed was revoked',
      );
    }
    throw error;
  }
  try {
    const body: unknown = JSON.parse(response.text);
    return { body, raw: response.text };
  } catch {
    // 204 or a text body: the revocation happened, but there is no document to pass on.
    const body = { id, revoked: true };
    return { body, raw: JSON.stringify(body) };
  }
}

/** `ci` rotated on 2026-11-21 becomes `ci (rotated 2026-11-21)`; an earlier date is replaced, not stacked. */
export function rotatedName(oldName: unknown, now: number): string {
  const base = typeof oldName === 'string' && oldName.trim() !== '' ? oldName.replace(/ \(rotated \d{4}-\d{2}-\d{2}\)$/, '') : 'key';
  return `${base} (rotated ${new Date(now).toISOString().slice(0, 10)})`;
}

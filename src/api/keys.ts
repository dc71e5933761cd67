import { CrawlError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import type { HttpClient, HttpResponse } from '../http/client.js';
import { answeredUnread } from '../http/errors.js';
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
  /** The 2xx status it came with. */
  status: number;
}

export async function listKeys(http: HttpClient): Promise<KeyList> {
  const { response, body } = await http.requestJson({ method: 'GET', path: ['api', 'keys'] });
  const what = `GET ${response.url.pathname}`;
  if (!isRecord(body)) throw malformed(what, 'expected a JSON object');
  if (!Array.isArray(body.keys)) throw malformed(what, 'no "keys" array in the body');
  const keys = body.keys.filter(isRecord).filter((k): k is ApiKey => typeof k.id === 'string');
  return { keys, raw: response.text, status: response.status };
}

/** The listed key that the given full key belongs to: its keyPrefix begins the key. */
export function keyInUse(keys: readonly ApiKey[], fullKey: string | undefined): ApiKey | undefined {
  if (!fullKey) return undefined;
  const matches = keys.filter((k) => typeof k.keyPrefix === 'string' && k.keyPrefix !== '' && fullKey.startsWith(k.keyPrefix));
  // The longest prefix is the most specific claim, should several ever match.
  return matches.sort((a, b) => String(b.keyPrefix).length - String(a.keyPrefix).length)[0];
}

/**
 * The outcome of a request that changes something is unknown: it was sent, but no answer came
 * (connection lost, timeout) or the answer could not be read. Callers must not assume either way.
 */
export class OutcomeUnknownError extends CrawlError {
  constructor(message: string, exitCode: number, hint?: string) {
    super(message, exitCode, hint === undefined ? {} : { hint });
    this.name = 'OutcomeUnknownError';
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

/** POST /api/keys, sent once: a retry could create a second key the user never sees. */
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

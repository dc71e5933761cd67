// Revoking several keys, one DELETE each (`keys revoke` with several ids, `keys prune`): one loop
// for both, so a failure reads the same wherever it comes from.
import { CrawlError, InterruptedError, isCrawlError } from '../errors.js';
import type { HttpClient } from '../http/client.js';
import { keyLabel } from './key-label.js';
import { revokeKey, type ApiKey, type RevokedKey } from './keys.js';

export type RevokeOutcome =
  | { key: ApiKey; ok: true; revoked: RevokedKey }
  /** The service's error, reworded to name the key; its exit code, HTTP status and hint kept. */
  | { key: ApiKey; ok: false; error: CrawlError };

/**
 * DELETE /api/keys/:id for each key in order, each sent once; `each` hears every outcome as it
 * comes (a ✓ line, a reported failure). A failure does not stop the others; an interrupt, or an
 * error that is not the service's, stops the loop and is thrown.
 */
export async function revokeEach(http: HttpClient, keys: readonly ApiKey[], each: (outcome: RevokeOutcome) => void): Promise<RevokeOutcome[]> {
  const outcomes: RevokeOutcome[] = [];
  for (const key of keys) {
    let outcome: RevokeOutcome;
    try {
      outcome = { key, ok: true, revoked: await revokeKey(http, key.id) };
    } catch (error) {
      if (error instanceof InterruptedError || !isCrawlError(error)) throw error;
      outcome = { key, ok: false, error: revokeFailure(key, error) };
    }
    outcomes.push(outcome);
    each(outcome);
  }
  return outcomes;
}

function revokeFailure(key: ApiKey, error: CrawlError): CrawlError {
  return new CrawlError(`cannot revoke key ${keyLabel(key)}: ${error.message}`, error.exitCode, {
    ...(error.httpStatus === undefined ? {} : { httpStatus: error.httpStatus }),
    ...(error.hint === undefined ? {} : { hint: error.hint }),
  });
}

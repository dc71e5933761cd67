import { verifyKey } from '../../../api/keys.js';
import type { Deps } from '../../../deps.js';

/**
 * Whether the service accepts a key: one GET /api/keys with it, answered by the base URL's own
 * origin (see verifyKey). 401/403 mean no; anything else that is not a key list is thrown.
 */
export async function keyAccepted(deps: Deps, apiKey: string): Promise<{ accepted: boolean; status: number }> {
  const verdict = await verifyKey(await deps.http({ apiKey }));
  return verdict.accepted ? { accepted: true, status: verdict.list.status } : verdict;
}

import { listKeys } from '../../api/keys.js';
import type { Context } from '../../cli/context.js';
import { HttpStatusError } from '../../http/errors.js';

/**
 * Whether the service accepts a key: one GET /api/keys with it. 401/403 mean no; any other
 * failure (network, 5xx) is not an answer and is thrown as it is, and so is a 200 that is not a
 * key list (a web site at the base URL answers 200 to anything, and proves nothing).
 */
export async function keyAccepted(ctx: Context, apiKey: string): Promise<{ accepted: boolean; status: number }> {
  const http = ctx.http({ apiKey });
  try {
    const { status } = await listKeys(http);
    return { accepted: true, status };
  } catch (error) {
    if (error instanceof HttpStatusError && (error.status === 401 || error.status === 403)) {
      return { accepted: false, status: error.status };
    }
    throw error;
  }
}

import type { Deps } from '../../../deps.js';
import { ExitCode } from '../../../exit-codes.js';
import { isClosedPipe, OutputWriteError } from '../../../io/write-error.js';

/**
 * The raw key in use, for scripts (`curl -H "Authorization: Bearer $(crawl auth token)"`): handed
 * over on purpose, so it bypasses the redaction every other write to stdout goes through.
 */
export type TokenOptions = Record<string, never>;

export async function printToken(deps: Deps, _options: TokenOptions): Promise<number> {
  const key = deps.settings.requireApiKey();
  try {
    await deps.handOver(key.value + '\n');
  } catch (error) {
    // `crawl auth token | head -c0`: the reader went away, as with any other output.
    if (error instanceof OutputWriteError && isClosedPipe(error.cause)) return ExitCode.ok;
    throw error;
  }
  return ExitCode.ok;
}

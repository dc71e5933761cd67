import type { Deps } from '../../../deps.js';
import { ExitCode } from '../../../exit-codes.js';
import { isClosedPipe, OutputWriteError } from '../../../io/write-error.js';
import { jsonDocument } from '../../../io/json.js';

/**
 * The raw key in use, for scripts (`curl -H "Authorization: Bearer $(crawl auth token)"`): handed
 * over on purpose, so it bypasses the redaction every other write to stdout goes through. With
 * --json, `{"profile","apiKey","apiKeySource"}`, handed over the same way.
 */
export type TokenOptions = Record<string, never>;

export async function authTokenRun(deps: Deps, _options: TokenOptions): Promise<number> {
  const key = await deps.settings.requireApiKey(deps.signal);
  // Handed over on stdout, and nowhere else: whatever else this run prints (a --jq filter's debug line) is redacted of it.
  deps.redactor.add(key.value);
  const text = deps.globals.json
    ? jsonDocument(deps.io, JSON.stringify({ profile: deps.settings.profile().value, apiKey: key.value, apiKeySource: key.source }))
    : key.value + '\n';
  try {
    await deps.handOver(text);
  } catch (error) {
    // `crawl auth token | head -c0`: the reader went away, as with any other output.
    if (error instanceof OutputWriteError && isClosedPipe(error.cause)) return ExitCode.ok;
    throw error;
  }
  return ExitCode.ok;
}

import { CrawlError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';

/** A 200 whose body is not the documented shape: a malformed response (exit 1), never a crash. */
export function malformed(what: string, detail: string): CrawlError {
  return new CrawlError(`malformed response to ${what}: ${detail}`, ExitCode.failure);
}

export { isRecord } from '../text/record.js';

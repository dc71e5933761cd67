import { CrawlError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';

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

/**
 * The service made a key that no Authorization header can carry (control characters, white space,
 * anything outside visible ASCII): it cannot authenticate, and printed it would act on the
 * terminal. It is never printed or stored; the key exists at the service all the same.
 */
export class UnusableKeyError extends CrawlError {
  readonly keyName: string;
  readonly #key: string;

  constructor(keyName: string, key: string, why: string) {
    super(
      `the service returned an unusable key named "${keyName}": ${why}, so it was neither printed nor stored`,
      ExitCode.failure,
      { hint: `the key exists at the service: find it by its name with \`crawl keys list\` and revoke it with \`crawl keys revoke <id> --yes\`` },
    );
    this.name = 'UnusableKeyError';
    this.keyName = keyName;
    this.#key = key;
  }

  /** The key, for the caller to keep out of every later output; never part of the message. */
  secret(): string {
    return this.#key;
  }
}

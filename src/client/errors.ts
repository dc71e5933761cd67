import { CrawlError } from '../errors.js';

export type RotationStep = 'verify' | 'store' | 'revoke';

/**
 * A rotation that did not finish: at which step, whether the new key is stored, and whether it
 * was revoked again. When it is neither stored nor revoked, `secret()` is the one place it is kept.
 */
export class RotationError extends CrawlError {
  readonly step: RotationStep;
  readonly stored: boolean;
  readonly rolledBack: boolean;
  readonly #key: string | undefined;

  constructor(step: RotationStep, message: string, exitCode: number, details: { stored: boolean; rolledBack: boolean; cause: unknown; key?: string }) {
    super(message, exitCode, { cause: details.cause });
    this.name = 'RotationError';
    this.step = step;
    this.stored = details.stored;
    this.rolledBack = details.rolledBack;
    this.#key = details.key;
  }

  /** The new key when nothing else holds it (not stored, not revoked); else undefined. */
  secret(): string | undefined {
    return this.#key;
  }
}

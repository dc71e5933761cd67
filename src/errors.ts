import { ExitCode } from './exit-codes.js';

/**
 * Every failure the user should see as one line carries its exit code, so the top level never
 * has to guess. `hint` is the optional second line: the command that fixes it.
 */
export class CrawlError extends Error {
  readonly exitCode: number;
  readonly httpStatus: number | undefined;
  readonly hint: string | undefined;

  constructor(message: string, exitCode: number, options: { httpStatus?: number; hint?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CrawlError';
    this.exitCode = exitCode;
    this.httpStatus = options.httpStatus;
    this.hint = options.hint;
  }
}

export class UsageError extends CrawlError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.usage, hint === undefined ? {} : { hint });
    this.name = 'UsageError';
  }
}

/** Raised when the user interrupts (SIGINT/SIGTERM); the top level exits quietly with its code. */
export class InterruptedError extends CrawlError {
  constructor(exitCode: number = ExitCode.interrupted) {
    super('interrupted', exitCode);
    this.name = 'InterruptedError';
  }
}

/** The --jq filter stopped on a value: exit 1, after what it printed before it. */
export class FilterError extends CrawlError {
  constructor(message: string) {
    super(message, ExitCode.failure);
    this.name = 'FilterError';
  }
}

export function isCrawlError(error: unknown): error is CrawlError {
  return error instanceof CrawlError;
}

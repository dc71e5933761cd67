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
  constructor(message: string, exitCode: number = ExitCode.failure) {
    super(message, exitCode);
    this.name = 'FilterError';
  }
}

/**
 * The --jq filter halted (`halt`, `halt_error`), as jq exits: with the exit code the filter gave (0
 * for `halt`, 5 for `halt_error` without one) and what it wrote on stderr (halt_error's message).
 * A FilterError, so that what stops at a filter's error stops at a halt the same way.
 */
export class FilterHalt extends FilterError {
  readonly stderr: string;

  constructor(exitCode: number, stderr: string) {
    super(stderr === '' ? 'the --jq filter halted' : stderr, exitCode);
    this.name = 'FilterHalt';
    this.stderr = stderr;
  }
}

export function isCrawlError(error: unknown): error is CrawlError {
  return error instanceof CrawlError;
}

// Local output failures (stdout, --output, key files) as one line each. Apart from the export
// code, so that every command can report them without loading node:fs/promises.
import { CrawlError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { describeFsError } from '../platform/fs-errors.js';

export function isClosedPipe(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED' || code === 'ERR_STREAM_WRITE_AFTER_END';
}

/** A local I/O failure on the output (exit 1). */
export class OutputWriteError extends CrawlError {
  constructor(message: string, cause: unknown) {
    super(message, ExitCode.failure, { cause });
    this.name = 'OutputWriteError';
  }
}

/** A local I/O failure as one line. */
export function writeError(path: string | undefined, error: unknown): OutputWriteError {
  const where = path === undefined ? 'standard output' : path;
  return new OutputWriteError(`cannot write to ${where}: ${describeFsError(error)}`, error);
}

/** The reader of stdout went away (`| head -1`): not a failure, the export just stops. */
export class OutputClosedError extends Error {
  constructor() {
    super('output closed by the reader');
    this.name = 'OutputClosedError';
  }
}

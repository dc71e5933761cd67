import type { Writable } from 'node:stream';
import type { Redactor } from '../text/redact.js';

/** What commands write text to: stdout and stderr as the IO hands them out. */
export interface TextWriter {
  /** One call per line (or per whole block of lines): a secret is only found whole within one write. */
  write(text: string, callback?: (error?: Error | null) => void): boolean;
}

/**
 * A stream whose every write goes through the run's redactor first. The IO's stdout and stderr
 * are these, so no command, message, table or trace can print a key by forgetting to redact it.
 * The stream is looked up on each write, so it is still built only when first written to.
 */
export function redactingWriter(stream: () => Writable, redactor: Redactor): TextWriter {
  return {
    write(text, callback) {
      return stream().write(redactor.redact(text), callback);
    },
  };
}

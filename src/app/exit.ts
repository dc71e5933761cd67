import { FilterHalt, InterruptedError, isCrawlError } from '../errors.js';
import { OutputClosedError } from '../io/write-error.js';
import { ExitCode } from '../exit-codes.js';
import type { IO } from '../io/io.js';
import { sanitize } from '../text/sanitize.js';
import { withSuggestionFlags, type Quoting } from '../text/shell.js';

export interface ReportOptions {
  json: boolean;
  verbose: boolean;
  redact: (text: string) => string;
  /** The global flags (--profile ...) that every `crawl` command a hint names must carry. */
  suggestionFlags?: readonly string[];
  /** How the flags are written into the hint's commands: for the user's system's shells. */
  quoting?: Quoting;
}

/**
 * The one place errors reach the user: `crawl: <message>` (and an optional hint line) on stderr,
 * or with --json (and --jq), when stderr is not a terminal, one JSON line
 * `{"error":{message,httpStatus,exitCode}}` for the script reading it; a person at a terminal gets
 * the text lines in every mode. Stack traces only with --verbose. Returns the exit code.
 *
 * Every string is sanitised, then redacted (stderr redacts too, but the JSON line is redacted
 * before JSON.stringify, which would otherwise re-encode what a redactor must recognise).
 */
export function reportError(io: IO, error: unknown, options: ReportOptions): number {
  // What jq itself would print on halt_error, each line cleared of what would act on a terminal.
  if (error instanceof FilterHalt) {
    if (error.stderr !== '') io.stderr.write(error.stderr.split('\n').map((line) => sanitize(line)).join('\n') + '\n');
    return error.exitCode;
  }
  const known = isCrawlError(error);
  const exitCode = known ? error.exitCode : ExitCode.failure;
  const raw = known ? error.message : `unexpected error: ${error instanceof Error ? error.message : String(error)}`;
  const message = options.redact(sanitize(raw));
  const hint = known && error.hint ? options.redact(sanitize(withSuggestionFlags(error.hint, options.suggestionFlags ?? [], options.quoting))) : undefined;
  if (options.json && !io.stderrIsTTY) {
    const httpStatus = known && error.httpStatus !== undefined ? error.httpStatus : null;
    io.stderr.write(JSON.stringify({ error: { message, httpStatus, exitCode } }) + '\n');
  } else {
    io.stderr.write(`crawl: ${message}\n`);
    if (hint) io.stderr.write(`hint: ${hint}\n`);
  }
  if (options.verbose && error instanceof Error && error.stack) {
    // The first line is the message, which may quote the server: each line is sanitised alone,
    // so the trace keeps its lines, and the whole of it is redacted in one write.
    const lines = error.stack.split(/\r\n|[\n\r\u2028\u2029]/).map((line) => sanitize(line));
    io.stderr.write(options.redact(lines.join('\n')) + '\n');
  }
  return exitCode;
}

/** An error that ends the run quietly, and its exit code: an interrupt, or a reader that went away. */
export function quietExitCode(error: unknown): number | undefined {
  if (error instanceof InterruptedError) return error.exitCode;
  if (error instanceof OutputClosedError) return ExitCode.ok;
  return undefined;
}

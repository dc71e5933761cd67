import type { Readable, Writable } from 'node:stream';
import type { Redactor } from '../text/redact.js';
import { sanitizeLines } from '../text/sanitize.js';
import type { JsonFilter } from './jq.js';
import { redactingWriter, type TextWriter } from './redacting-writer.js';

export type { TextWriter };

/** Standard input as a prompt reads it: a TTY can be put in raw mode (no echo). */
export type Stdin = Readable & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };

/**
 * The three standard streams as the system (src/io/system-streams.ts) or a test
 * (src/io/test-streams.ts) provides them, with what is known about each. Nothing here redacts:
 * the IO built on them does.
 */
export interface RawStreams {
  readonly stdin: Stdin;
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly isTTY: { readonly stdin: boolean; readonly stdout: boolean; readonly stderr: boolean };
  /** The terminal's width on stdout; 80 when it is not a terminal. */
  readonly columns: number;
  /** The same on stderr, where progress lines go. */
  readonly stderrColumns: number;
  /** Calls `listener` when the terminal on stderr changes size (SIGWINCH); returns the unsubscribe. */
  onStderrResize(listener: () => void): () => void;
  /** The terminal's height on stderr; 24 when it is not a terminal or does not say. */
  readonly stderrRows: number;
  /**
   * Help and the version: may bypass building the stream (the system writes straight to fd 1 when
   * it is not a terminal). Write errors reach the stdout error handler all the same.
   */
  writeHelp(text: string): void;
  /** Whether fd 1 or 2 could be a terminal, answered without building the stream when possible. */
  mayBeTerminal(fd: 1 | 2): boolean;
  /** What to do when a write to stdout or stderr fails. */
  onError(handlers: { stdout: (error: NodeJS.ErrnoException) => void; stderr: (error: NodeJS.ErrnoException) => void }): void;
  /** Resolves once what was written to stdout so far has been handed to the system (or failed). */
  flush(): Promise<void>;
}

/**
 * The streams a command talks to, with what it may do on each (after gh's iostreams): whether
 * stdout is a terminal (tables vs tab-separated rows), whether stderr is (live progress), whether
 * colour is on, and whether the user may be prompted.
 */
export interface IO {
  stdin: Stdin;
  /** Everything for people and scripts: redacted on the way out (see redacting-writer.ts). */
  stdout: TextWriter;
  stderr: TextWriter;
  /**
   * stdout itself, unredacted, for the two writers that must not be redacted: a key handed over on
   * purpose (Deps.handOver) and the NDJSON records of `job pages`, whose bodies the HTTP layer
   * has already redacted and which must stay fast. Nothing else uses it.
   */
  rawStdout: Writable;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /** Colour on stdout / stderr. */
  color: boolean;
  colorStderr: boolean;
  /** stdout's width (80 when it is not a terminal). */
  columns: number;
  /** stderr's width (80 when it is not a terminal), for progress lines. Read at each draw: it changes. */
  stderrColumns: number;
  /** Calls `listener` when the terminal on stderr changes size; returns the unsubscribe. */
  onStderrResize(listener: () => void): () => void;
  /** stderr's height in rows (24 when unknown): a block of live lines never grows past it. */
  stderrRows: number;
  /**
   * stderr is a terminal that can redraw a line in place: not TERM=dumb, which gets plain lines
   * and no cursor movement (clig.dev).
   */
  stderrLive: boolean;
  /**
   * A JSON document on stdout is laid out for people (io/json.ts): stdout is a terminal and no
   * --jq filter stands between (its output is jq's own).
   */
  prettyJson: boolean;
  noInput: boolean;
}

export interface ColorInputs {
  env: Readonly<Record<string, string | undefined>>;
  noColorFlag: boolean;
  isTTY: boolean;
}

/** NO_COLOR and --no-color win; FORCE_COLOR forces it on (unless "0"); TERM=dumb and non-TTYs get none. */
export function colorEnabled({ env, noColorFlag, isTTY }: ColorInputs): boolean {
  if (noColorFlag) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force !== 'false';
  if (env.TERM === 'dumb') return false;
  return isTTY;
}

export function canPrompt(io: IO): boolean {
  return !io.noInput && io.stdinIsTTY && io.stderrIsTTY;
}

/**
 * The IO of one run over raw streams: stdout and stderr redact the run's secrets. Every fact is
 * read when first asked for, so a command that never touches a stream never has it built.
 */
export function createIO(
  raw: RawStreams,
  redactor: Redactor,
  options: { env: Readonly<Record<string, string | undefined>>; noColor: boolean; noInput: boolean; filter?: JsonFilter | undefined },
): IO {
  const stdout = redactingWriter(() => raw.stdout, redactor);
  return {
    get stdin() {
      return raw.stdin;
    },
    stdout: options.filter ? filteringWriter(stdout, options.filter, () => raw.isTTY.stdout) : stdout,
    stderr: redactingWriter(() => raw.stderr, redactor),
    get rawStdout() {
      return raw.stdout;
    },
    get stdinIsTTY() {
      return raw.isTTY.stdin;
    },
    get stdoutIsTTY() {
      return raw.isTTY.stdout;
    },
    get stderrIsTTY() {
      return raw.isTTY.stderr;
    },
    get color() {
      return colorEnabled({ env: options.env, noColorFlag: options.noColor, isTTY: raw.isTTY.stdout });
    },
    get colorStderr() {
      return colorEnabled({ env: options.env, noColorFlag: options.noColor, isTTY: raw.isTTY.stderr });
    },
    get columns() {
      return raw.columns;
    },
    get stderrColumns() {
      return raw.stderrColumns;
    },
    onStderrResize: (listener) => raw.onStderrResize(listener),
    get stderrRows() {
      return raw.stderrRows;
    },
    get stderrLive() {
      return raw.isTTY.stderr && options.env.TERM !== 'dumb';
    },
    get prettyJson() {
      return raw.isTTY.stdout && !options.filter;
    },
    noInput: options.noInput,
  };
}

/**
 * --jq: what a command writes to stdout (its JSON, a document or NDJSON lines a write) goes through
 * the filter, then the redactor. jq's runtime error is thrown after what came before it is written.
 * On a terminal, what the filter printed is cleared of what would act on it (its strings are raw).
 */
function filteringWriter(stdout: TextWriter, filter: JsonFilter, toTerminal: () => boolean): TextWriter {
  return {
    write(text, callback) {
      const { output, error } = filter.apply(text);
      const shown = toTerminal() ? sanitizeLines(output) : output;
      const ready = shown === '' ? (callback?.(), true) : stdout.write(shown, callback);
      if (error) throw error;
      return ready;
    },
  };
}

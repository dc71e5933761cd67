import type { Readable, Writable } from 'node:stream';
import { Redactor } from '../text/redact.js';
import { redactingWriter, type TextWriter } from './redacting-writer.js';
import { stderr, stdout } from './stdio.js';

export type { TextWriter };

/**
 * The streams a command talks to, with what it may do on each (after gh's iostreams):
 * whether stdout is a terminal (tables vs tab-separated rows), whether stderr is (live progress),
 * whether colour is on, and whether the user may be prompted.
 */
export interface IO {
  stdin: Readable & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };
  /** Everything for people and scripts: redacted on the way out (see redacting-writer.ts). */
  stdout: TextWriter;
  stderr: TextWriter;
  /**
   * stdout itself, unredacted, for the two writers that must not be redacted: a key handed over on
   * purpose (Context.handOver) and the NDJSON records of `job pages`, whose bodies the HTTP layer
   * has already redacted and which must stay fast. Nothing else uses it.
   */
  rawStdout: Writable;
  /** The run's secrets: what stdout and stderr redact. Context.secrets is this one. */
  redactor: Redactor;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /** Colour on stdout / stderr. */
  color: boolean;
  colorStderr: boolean;
  noInput: boolean;
}

export interface ColorInputs {
  env: NodeJS.ProcessEnv;
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
 * The process's streams, each built only when a command first uses it (see stdio.ts): a status
 * read builds stdout alone, and never stdin. stdout and stderr redact the run's secrets.
 */
export function processIO(env: NodeJS.ProcessEnv, options: { noColor: boolean; noInput: boolean }): IO {
  const redactor = new Redactor();
  return {
    get stdin() {
      return process.stdin;
    },
    stdout: redactingWriter(stdout, redactor),
    stderr: redactingWriter(stderr, redactor),
    get rawStdout() {
      return stdout();
    },
    redactor,
    get stdinIsTTY() {
      return process.stdin.isTTY === true;
    },
    get stdoutIsTTY() {
      return stdout().isTTY === true;
    },
    get stderrIsTTY() {
      return stderr().isTTY === true;
    },
    get color() {
      return colorEnabled({ env, noColorFlag: options.noColor, isTTY: this.stdoutIsTTY });
    },
    get colorStderr() {
      return colorEnabled({ env, noColorFlag: options.noColor, isTTY: this.stderrIsTTY });
    },
    noInput: options.noInput,
  };
}

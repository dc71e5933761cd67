// Standard streams made of memory, for running the CLI inside a test (or a program that embeds
// it): each can claim to be a terminal or not, stdin holds a given text, and everything written
// is kept in order. No `process`, no file descriptor.
import { PassThrough, Readable, Writable } from 'node:stream';
import type { RawStreams, Stdin } from './io.js';

export interface TestStreamsOptions {
  /** Which streams are terminals: `true` for all three (as in a terminal), default none. */
  tty?: boolean | { stdin?: boolean; stdout?: boolean; stderr?: boolean };
  /** What stdin holds. Off a terminal it ends after it (empty and ended without it); on one it stays open. */
  input?: string;
  /** The terminal's width (stdout and stderr), default 80. */
  columns?: number;
  /** Its height, default 24. */
  rows?: number;
  /** stdout fails with this error code (`EPIPE`, `ENOSPC`) once this many bytes were written. */
  stdoutFails?: { code: string; afterBytes?: number };
  /** stderr fails with this error code (`EPIPE`, `ENOSPC`) once this many bytes were written. */
  stderrFails?: { code: string; afterBytes?: number };
}

export interface TestStreams extends RawStreams {
  stdoutText(): string;
  stderrText(): string;
  /** stdout and stderr interleaved as written: what a terminal showing both would hold. */
  outputText(): string;
  /** Raw mode calls on stdin (a hidden prompt turns it on, then off). */
  readonly rawModes: boolean[];
  /** Types into stdin, as a person at the terminal would (stdin a terminal only). */
  type(text: string): void;
  /** The terminal is made `columns` wide, as a window resized (SIGWINCH) would be. */
  resize(columns: number): void;
}

export function testStreams(options: TestStreamsOptions = {}): TestStreams {
  const tty = typeof options.tty === 'object' ? options.tty : { stdin: options.tty, stdout: options.tty, stderr: options.tty };
  const isTTY = { stdin: tty.stdin === true, stdout: tty.stdout === true, stderr: tty.stderr === true };
  const out: string[] = [];
  const err: string[] = [];
  const both: string[] = [];
  const rawModes: boolean[] = [];
  let errorHandlers: { stdout: (e: NodeJS.ErrnoException) => void; stderr: (e: NodeJS.ErrnoException) => void } | undefined;

  const sink = (into: string[], fails?: TestStreamsOptions['stdoutFails']): Writable => {
    let written = 0;
    return new Writable({
      decodeStrings: false,
      write(chunk: string | Buffer, _encoding, callback) {
        const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
        if (fails) {
          const room = (fails.afterBytes ?? 0) - written;
          if (room < Buffer.byteLength(text)) {
            const taken = Buffer.from(text).subarray(0, Math.max(0, room)).toString('utf8');
            into.push(taken);
            both.push(taken);
            written += Buffer.byteLength(taken);
            return callback(Object.assign(new Error(`write ${fails.code}`), { code: fails.code }));
          }
          written += Buffer.byteLength(text);
        }
        into.push(text);
        both.push(text);
        callback();
      },
    });
  };

  const stdout = sink(out, options.stdoutFails);
  const stderr = sink(err, options.stderrFails);
  // A terminal's input never ends by itself: what is typed later arrives through type().
  const typed = isTTY.stdin ? new PassThrough() : undefined;
  if (typed && options.input !== undefined) typed.write(options.input);
  const stdin = (typed ?? Readable.from(options.input === undefined ? [] : [Buffer.from(options.input)])) as Stdin;
  if (isTTY.stdin) {
    stdin.isTTY = true;
    stdin.setRawMode = (mode: boolean) => {
      rawModes.push(mode);
      return stdin;
    };
  }
  let columns = options.columns ?? 80;
  Object.assign(stdout, { isTTY: isTTY.stdout, columns });
  Object.assign(stderr, { isTTY: isTTY.stderr, columns });

  return {
    stdin,
    stdout,
    stderr,
    isTTY,
    get columns() {
      return isTTY.stdout ? columns : 80;
    },
    get stderrColumns() {
      return isTTY.stderr ? columns : 80;
    },
    get stderrRows() {
      return isTTY.stderr ? (options.rows ?? 24) : 24;
    },
    onStderrResize(listener) {
      if (!isTTY.stderr) return () => undefined;
      stderr.on('resize', listener);
      return () => void stderr.off('resize', listener);
    },
    mayBeTerminal: (fd) => (fd === 1 ? isTTY.stdout : isTTY.stderr),
    onError(handlers) {
      if (errorHandlers === undefined) {
        stdout.on('error', (e: NodeJS.ErrnoException) => errorHandlers?.stdout(e));
        stderr.on('error', (e: NodeJS.ErrnoException) => errorHandlers?.stderr(e));
      }
      errorHandlers = handlers;
    },
    writeHelp(text) {
      stdout.write(text);
    },
    flush() {
      return new Promise((resolve) => {
        if (stdout.destroyed || stdout.writableEnded) return resolve();
        stdout.write('', () => resolve());
      });
    },
    stdoutText: () => out.join(''),
    stderrText: () => err.join(''),
    outputText: () => both.join(''),
    rawModes,
    type(text) {
      if (!typed) throw new Error('stdin is not a terminal: give its text as `input`');
      typed.write(text);
    },
    resize(width) {
      columns = width;
      for (const stream of [stdout, stderr]) {
        Object.assign(stream, { columns });
        stream.emit('resize');
      }
    },
  };
}

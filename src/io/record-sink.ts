import { close, constants, createWriteStream, fstat, ftruncate, open, stat, unlink, type Stats } from 'node:fs';
import type { Writable } from 'node:stream';
import { realClock, type Clock } from '../platform/clock.js';
import { InterruptedError } from '../errors.js';
import type { JsonFilter } from './jq.js';
import type { JsonSpan } from '../text/json-scan.js';
import { ndjsonChunks } from '../text/ndjson.js';
import { sanitizeLines } from '../text/sanitize.js';
import { alignLines, type LineAlignment } from './line-pipe.js';
import { isClosedPipe, OutputClosedError, writeError } from './write-error.js';


/** On a signal, a line longer than PIPE_BUF half in a FIFO gets this long to finish (see line-pipe.ts). */
const LONG_LINE_GRACE_MS = 1000;

/**
 * Writes NDJSON records to stdout or a file, waiting for 'drain' whenever the stream says its
 * buffer is full: however fast the service answers, about one batch is held. A write error (EPIPE
 * on stdout, ENOSPC on a file) is remembered and thrown by the next call. A regular file is left
 * holding whole records only: a chunk the disk took half of is cut off again. Waits end at once
 * on Ctrl-C or SIGTERM (the interrupt signal), so a reader that stalls never holds the process.
 * A regular file that existed is emptied only when the first bytes are written (after --jq, which
 * may stop or print nothing), or at a close that ends the export with none, so a failure before
 * any record leaves it as it was.
 */
export class RecordSink {
  /** Records handed to the stream. After close() they are the records written (whole lines). */
  written = 0;
  /** For messages: `out.ndjson`, or undefined for stdout. */
  readonly path: string | undefined;
  readonly #stream: Writable;
  readonly #file: OutputFile | undefined;
  readonly #lines: LineAlignment | undefined;
  readonly #interrupt: AbortSignal | undefined;
  /**
   * --jq: each chunk of records goes through it; what it prints is written instead, on a terminal
   * cleared of what would act on it (the filter's strings are raw).
   */
  filter: JsonFilter | undefined;
  readonly #terminal: boolean;
  #failure: Error | undefined;
  #closed: Promise<void> | undefined;
  /** What the system confirmed written: whole chunks, so always a line boundary. */
  #confirmed = { records: 0, bytes: 0 };
  /**
   * A regular file that still holds what it held before this export: it is emptied just before
   * the first write. Only a regular file can be emptied (ftruncate); a FIFO, a terminal or a
   * device such as /dev/null is written to from the start, as it always was, with nothing to keep.
   */
  #untouched: boolean;
  readonly #onError = (error: Error): void => {
    this.#failure ??= error;
  };

  private constructor(stream: Writable, file: OutputFile | undefined, lines: LineAlignment | undefined, interrupt: AbortSignal | undefined) {
    this.#stream = stream;
    this.#terminal = file === undefined ? (stream as { isTTY?: boolean }).isTTY === true : file.kind === 'tty';
    this.path = file?.path;
    this.#file = file;
    this.#lines = lines;
    this.#interrupt = interrupt;
    this.#untouched = file?.kind === 'file' && !file.created;
    stream.on('error', this.#onError);
  }

  /**
   * True while the file is as it was before the export: an existing regular file nothing has been
   * written to (nor emptied) yet. After a failure, abandon() closes it so; close() would empty it.
   */
  get untouched(): boolean {
    return this.#untouched;
  }

  /** stdout: never ended (the process owns it), only flushed. */
  static toStream(stream: Writable, interrupt?: AbortSignal): RecordSink {
    return new RecordSink(stream, undefined, undefined, interrupt);
  }

  /** A file begun with beginOutputFile. */
  /** `pipeBuf`: the platform's PIPE_BUF, for a FIFO (platform/platform.ts). */
  static async toFile(file: OutputFile, interrupt?: AbortSignal, pipeBuf?: number): Promise<RecordSink> {
    const fd = file.fd;
    if (fd === undefined) throw new Error('the output file is not open');
    if (file.kind === 'fifo') {
      // A pipe handle on the event loop, not fs writes in the thread pool: a blocked write there
      // would hold the process past any signal. Whole lines, as on stdout.
      const { Socket } = await import('node:net');
      const socket = new Socket({ fd, readable: false, writable: true });
      return new RecordSink(socket, file, alignLines(socket, { atomic: true, ...(pipeBuf === undefined ? {} : { pipeBuf }) }), interrupt);
    }
    if (file.kind === 'tty') {
      const { WriteStream } = await import('node:tty');
      return new RecordSink(new WriteStream(fd), file, undefined, interrupt);
    }
    // The fd stays open after a failure, to cut a half-written chunk off before closing it.
    return new RecordSink(createWriteStream('', { fd, autoClose: false }), file, undefined, interrupt);
  }

  /**
   * Writes the first `max` elements of the checked JSON array at `array` in `text`, one a line, each
   * as the service sent it. Returns how many it wrote.
   */
  async writeArray(text: string, array: JsonSpan, max = Infinity): Promise<number> {
    let count = 0;
    for (const chunk of ndjsonChunks(text, array, max)) {
      await this.writeLines(chunk.bytes, chunk.count);
      count += chunk.count;
    }
    return count;
  }

  /** Writes `count` records already rendered as NDJSON. */
  async writeLines(records: Buffer | string, count: number): Promise<void> {
    this.#check();
    let lines = records;
    let failure: Error | undefined;
    if (this.filter) {
      const { output, error } = this.filter.apply(typeof records === 'string' ? records : records.toString('utf8'));
      lines = this.#terminal ? sanitizeLines(output) : output;
      failure = error;
    }
    const bytes = typeof lines === 'string' ? Buffer.byteLength(lines) : lines.length;
    // After the filter, which may stop on the first record or print nothing: the file is emptied
    // only for bytes that replace what it held.
    if (this.#untouched && bytes > 0) {
      await this.#empty();
      this.#check();
    }
    const ready = this.#stream.write(lines, (error) => {
      if (error) return;
      this.#confirmed.records += count;
      this.#confirmed.bytes += bytes;
    });
    this.written += count;
    if (!ready) await this.#drained();
    this.#check();
    // jq's runtime error, after what the filter printed before it.
    if (failure) throw failure;
  }

  /**
   * The export is done: flushes everything written; for a file, closes it (an existing file the
   * export wrote no record to is emptied now: the export has no records). Throws the write error
   * if there was one.
   */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      // Interrupted, the export did not end: the file is closed as it was, and the interrupt thrown.
      if (this.#untouched && !this.#interrupt?.aborted) await this.#empty();
      await this.#close();
    })();
    return this.#closed;
  }

  /**
   * Empties the regular file, once; a failure is kept as a write error is (the next check throws
   * it). No longer untouched even if that fails: the file may be half cut.
   */
  async #empty(): Promise<void> {
    this.#untouched = false;
    const fd = this.#file?.fd;
    if (fd === undefined) return;
    await new Promise<void>((resolve) =>
      ftruncate(fd, 0, (error) => {
        if (error) this.#failure ??= error;
        resolve();
      }),
    );
  }

  /**
   * Stops at once on a signal, or after a failure that comes before any record (`untouched`). A
   * regular file is still flushed and closed (the disk does not stall), so it holds whole records,
   * and one still untouched is left as it was; a FIFO gets nothing more once its reader has whole lines;
   * stdout is left to the process's exit, which does the same for it.
   */
  async abandon(): Promise<void> {
    if (this.#file === undefined) return;
    if (this.#file.kind === 'file') return this.#closeQuietly();
    await this.#lines?.settle(LONG_LINE_GRACE_MS);
    // Every line is a record: what the pipe took, counted piece by piece.
    this.written = this.#lines?.linesWritten ?? this.#confirmed.records;
    this.#stream.destroy();
    this.#releaseFd(this.#file);
  }

  async #closeQuietly(): Promise<void> {
    // No interrupt here: the flush of a regular file is short.
    try {
      await this.#closeWith(undefined);
    } catch {
      // The interruption is what gets reported.
    }
  }

  #close(): Promise<void> {
    return this.#closeWith(this.#interrupt);
  }

  async #closeWith(interrupt: AbortSignal | undefined): Promise<void> {
    const stream = this.#stream;
    try {
      if (this.#file) {
        await new Promise<void>((resolve) => {
          const done = (): void => {
            interrupt?.removeEventListener('abort', done);
            resolve();
          };
          stream.once('finish', done);
          stream.once('error', done);
          interrupt?.addEventListener('abort', done, { once: true });
          if (!stream.writableEnded) stream.end();
          if (stream.writableFinished || stream.destroyed || this.#failure || interrupt?.aborted) done();
        });
        await this.#closeFile(this.#file);
        if (interrupt?.aborted) throw interrupt.reason;
      } else if (stream.writableLength > 0 && !stream.destroyed) {
        await this.#drained(interrupt);
      }
      this.#check();
    } finally {
      stream.off('error', this.#onError);
      // A late error (EPIPE on stdout, end() of a failed file stream) must not become an uncaught exception.
      stream.on('error', () => undefined);
    }
  }

  /** After a failure, a regular file is cut back to the last whole chunk, so every line is a record. */
  async #closeFile(file: OutputFile): Promise<void> {
    if (this.#failure || !this.#stream.writableFinished) {
      this.written = this.#confirmed.records;
      if (file.kind === 'file' && file.fd !== undefined && !this.#untouched) {
        await new Promise<void>((resolve) => ftruncate(file.fd as number, this.#confirmed.bytes, () => resolve()));
      }
    }
    const stream = this.#stream;
    await new Promise<void>((resolve) => {
      if (stream.closed) return resolve();
      stream.once('close', resolve);
      stream.destroy();
    });
    this.#releaseFd(file);
  }

  /**
   * Every stream here closes its descriptor when destroyed (a file stream too: autoClose only
   * stops it closing on its own after an error). Closing it again could close whatever was opened
   * since under the same number, such as another run's socket in a process that embeds crawl.
   */
  #releaseFd(file: OutputFile): void {
    file.fd = undefined;
  }

  #drained(interrupt = this.#interrupt): Promise<void> {
    const stream = this.#stream;
    return new Promise((resolve) => {
      const done = (): void => {
        stream.off('drain', done);
        stream.off('error', done);
        stream.off('close', done);
        interrupt?.removeEventListener('abort', done);
        resolve();
      };
      stream.on('drain', done);
      stream.on('error', done);
      stream.on('close', done);
      interrupt?.addEventListener('abort', done, { once: true });
      if (this.#failure || stream.destroyed || interrupt?.aborted) done();
    });
  }

  #check(): void {
    if (this.#interrupt?.aborted) throw this.#interrupt.reason ?? new InterruptedError();
    const toStdout = this.#file === undefined;
    const failure = this.#failure ?? (this.#stream.destroyed && toStdout ? new OutputClosedError() : undefined);
    if (failure === undefined) return;
    if (toStdout && isClosedPipe(failure)) throw new OutputClosedError();
    throw writeError(this.path, failure);
  }
}

export interface OutputFile {
  path: string;
  /** Undefined for a FIFO no reader has opened yet (beginOutputFile waits for one). */
  fd: number | undefined;
  kind: 'file' | 'fifo' | 'tty' | 'other';
  /** The file did not exist before: removed again if the export never starts. */
  created: boolean;
}

// Non-blocking: opening a FIFO for writing would otherwise wait for a reader inside libuv's thread
// pool, where neither Ctrl-C nor process.exit() can end it. For regular files it changes nothing.
const WRITE = constants.O_WRONLY | constants.O_NONBLOCK;

/**
 * Opens --output before any request, so a missing folder or a read-only file fails at once.
 * An existing file is not truncated here: the sink empties it when the first records come (see
 * RecordSink), so neither a job that turns out not to exist nor a first batch that fails costs
 * the user the file they had. A FIFO with no reader yet is not waited for here.
 */
export async function openOutputFile(path: string): Promise<OutputFile> {
  try {
    const fd = await openFd(path, WRITE | constants.O_CREAT | constants.O_EXCL, 0o666);
    return { path, fd, kind: 'file', created: true };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw writeError(path, error);
  }
  try {
    const fd = await openFd(path, WRITE);
    return { path, fd, kind: await kindOf(await fstatFd(fd), fd), created: false };
  } catch (error) {
    // ENXIO: a FIFO that no one reads yet (or a socket, which cannot be opened at all).
    if ((error as NodeJS.ErrnoException).code === 'ENXIO' && (await statPath(path))?.isFIFO()) {
      return { path, fd: undefined, kind: 'fifo', created: false };
    }
    throw writeError(path, error);
  }
}

export interface BeginOptions {
  interrupt?: AbortSignal | undefined;
  /** Says, once, that the export waits for a reader of the FIFO. */
  notice?: ((line: string) => void) | undefined;
  /** What the wait for a FIFO's reader sleeps on between tries; the real clock by default. */
  clock?: Clock | undefined;
}

/** How often a FIFO is tried again for a reader: there is no event to wait on. */
const READER_POLL_MS = 100;

/**
 * The export starts: for a FIFO, wait until something opens it for reading, for as long as it
 * takes, but never past Ctrl-C or SIGTERM. A regular file is not emptied yet: the sink does that
 * with the first records it writes.
 */
export async function beginOutputFile(file: OutputFile, options: BeginOptions = {}): Promise<void> {
  if (file.kind === 'fifo' && file.fd === undefined) return waitForReader(file, options);
}

async function waitForReader(file: OutputFile, options: BeginOptions): Promise<void> {
  const interrupt = options.interrupt;
  options.notice?.(`waiting for a reader to open ${file.path} (a FIFO) before writing to it`);
  for (;;) {
    if (interrupt?.aborted) throw new ReaderWaitInterrupted(file.path, interrupt.reason);
    try {
      file.fd = await openFd(file.path, WRITE);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENXIO') throw writeError(file.path, error);
    }
    // An interrupt ends the pause early; the loop's check then stops the wait.
    await (options.clock ?? realClock).sleep(READER_POLL_MS, interrupt).catch(() => undefined);
  }
}

/** Ctrl-C or SIGTERM while no reader had opened the FIFO: nothing was written. */
export class ReaderWaitInterrupted extends Error {
  readonly path: string;
  readonly interruption: unknown;

  constructor(path: string, interruption: unknown) {
    super(`interrupted while waiting for a reader to open ${path}`);
    this.name = 'ReaderWaitInterrupted';
    this.path = path;
    this.interruption = interruption;
  }
}

/** The export never started: give back the file as it was (or no file at all). */
export async function abandonOutputFile(file: OutputFile): Promise<void> {
  closeFd(file);
  if (file.created) await new Promise<void>((resolve) => unlink(file.path, () => resolve()));
}

function closeFd(file: OutputFile): void {
  const fd = file.fd;
  file.fd = undefined;
  if (fd !== undefined) close(fd, () => undefined);
}

async function kindOf(stats: Stats, fd: number): Promise<OutputFile['kind']> {
  if (stats.isFile()) return 'file';
  if (stats.isFIFO()) return 'fifo';
  // Only a character device can be a terminal: node:tty loads for those alone.
  if (stats.isCharacterDevice() && (await import('node:tty')).isatty(fd)) return 'tty';
  return 'other';
}

function openFd(path: string, flags: number, mode?: number): Promise<number> {
  return new Promise((resolve, reject) => open(path, flags, mode, (error, fd) => (error ? reject(error) : resolve(fd))));
}

function fstatFd(fd: number): Promise<Stats> {
  return new Promise((resolve, reject) => fstat(fd, (error, stats) => (error ? reject(error) : resolve(stats))));
}

function statPath(path: string): Promise<Stats | undefined> {
  return new Promise((resolve) => stat(path, (error, stats) => resolve(error ? undefined : stats)));
}

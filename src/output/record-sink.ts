import { constants, promises as fsp, type Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { CrawlError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { isClosedPipe, writeError } from './write-error.js';

/** The reader of stdout went away (`| head -1`): not a failure, the export just stops. */
export class OutputClosedError extends Error {
  constructor() {
    super('output closed by the reader');
    this.name = 'OutputClosedError';
  }
}

/**
 * Writes NDJSON records to stdout or a file, one write per batch, waiting for 'drain' whenever
 * the stream says its buffer is full: however fast the service answers, at most one batch is held.
 * A write error (EPIPE on stdout, ENOSPC on a file) is remembered and thrown by the next call.
 * A file is left holding whole records only: a batch the disk took half of is cut off again.
 */
export class RecordSink {
  /** Records handed to the stream. After close() they are the records written (whole lines). */
  written = 0;
  /** For messages: `out.ndjson`, or undefined for stdout. */
  readonly path: string | undefined;
  readonly #stream: Writable;
  readonly #file: OutputFile | undefined;
  #failure: Error | undefined;
  #closed: Promise<void> | undefined;
  /** What the system confirmed written: whole batches, so always a line boundary. */
  #confirmed = { records: 0, bytes: 0 };
  readonly #onError = (error: Error): void => {
    this.#failure ??= error;
  };

  private constructor(stream: Writable, path: string | undefined, file: OutputFile | undefined) {
    this.#stream = stream;
    this.path = path;
    this.#file = file;
    stream.on('error', this.#onError);
  }

  /** stdout: never ended (the process owns it), only flushed. */
  static toStream(stream: Writable): RecordSink {
    return new RecordSink(stream, undefined, undefined);
  }

  static toFile(file: OutputFile): RecordSink {
    // The handle stays open after a failure, to cut a half-written batch off before closing it.
    return new RecordSink(file.handle.createWriteStream({ encoding: 'utf8', autoClose: false }), file.path, file);
  }

  /** Writes each record as one JSON line. */
  write(records: readonly unknown[]): Promise<void> {
    if (records.length === 0) return Promise.resolve();
    let text = '';
    try {
      for (const record of records) text += JSON.stringify(record) + '\n';
    } catch {
      return this.#writeUntilUnwritable(records);
    }
    return this.writeLines(text, records.length);
  }

  /**
   * A record nested thousands deep overflows JSON.stringify's stack: the records before it are
   * written, then the export fails as a malformed response, not as a crash.
   */
  async #writeUntilUnwritable(records: readonly unknown[]): Promise<void> {
    let text = '';
    let count = 0;
    for (const record of records) {
      let line: string;
      try {
        line = JSON.stringify(record);
      } catch {
        if (count > 0) await this.writeLines(text, count);
        throw new CrawlError('malformed response: a page record is nested too deeply to write as JSON', ExitCode.failure);
      }
      text += line + '\n';
      count++;
    }
    await this.writeLines(text, count);
  }

  /** Writes `count` records already rendered as NDJSON text. */
  async writeLines(text: string, count: number): Promise<void> {
    this.#check();
    const bytes = Buffer.byteLength(text);
    const ready = this.#stream.write(text, (error) => {
      if (error) return;
      this.#confirmed.records += count;
      this.#confirmed.bytes += bytes;
    });
    this.written += count;
    if (!ready) await this.#drained();
    this.#check();
  }

  /** Flushes everything written; for a file, closes it. Throws the write error if there was one. */
  close(): Promise<void> {
    this.#closed ??= this.#close();
    return this.#closed;
  }

  async #close(): Promise<void> {
    const stream = this.#stream;
    try {
      if (this.#file) {
        await new Promise<void>((resolve) => {
          stream.once('finish', resolve);
          stream.once('error', () => resolve());
          if (!stream.writableEnded) stream.end();
          if (stream.writableFinished || stream.destroyed || this.#failure) resolve();
        });
        await this.#closeFile(this.#file);
      } else if (stream.writableLength > 0 && !stream.destroyed) {
        await this.#drained();
      }
      this.#check();
    } finally {
      stream.off('error', this.#onError);
      // A late error (EPIPE on stdout, end() of a failed file stream) must not become an uncaught exception.
      stream.on('error', () => undefined);
    }
  }

  /** After a failure, a regular file is cut back to the last whole batch, so every line is a record. */
  async #closeFile(file: OutputFile): Promise<void> {
    if (this.#failure) {
      this.written = this.#confirmed.records;
      try {
        if ((await file.handle.stat()).isFile()) await file.handle.truncate(this.#confirmed.bytes);
      } catch {
        // The write's own failure is the one to report.
      }
    }
    // Destroying the stream closes the handle (file.handle.close() alone would wait on the stream).
    const stream = this.#stream;
    await new Promise<void>((resolve) => {
      if (stream.closed) return resolve();
      stream.once('close', resolve);
      stream.destroy();
    });
  }

  #drained(): Promise<void> {
    const stream = this.#stream;
    return new Promise((resolve) => {
      const done = (): void => {
        stream.off('drain', done);
        stream.off('error', done);
        stream.off('close', done);
        resolve();
      };
      stream.on('drain', done);
      stream.on('error', done);
      stream.on('close', done);
      if (this.#failure || stream.destroyed) done();
    });
  }

  #check(): void {
    const toStdout = this.#file === undefined;
    const failure = this.#failure ?? (this.#stream.destroyed && toStdout ? new OutputClosedError() : undefined);
    if (failure === undefined) return;
    if (toStdout && isClosedPipe(failure)) throw new OutputClosedError();
    throw writeError(this.path, failure);
  }
}

export interface OutputFile {
  path: string;
  handle: FileHandle;
  /** The file did not exist before: removed again if the export never starts. */
  created: boolean;
}

/**
 * Opens --output before any request, so a missing folder or a read-only file fails at once.
 * An existing file is not truncated yet (`begin` does that), so a job that turns out not to exist
 * does not cost the user the file they had.
 */
export async function openOutputFile(path: string): Promise<OutputFile> {
  try {
    const handle = await fsp.open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o666);
    return { path, handle, created: true };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw writeError(path, error);
  }
  try {
    const handle = await fsp.open(path, constants.O_WRONLY);
    return { path, handle, created: false };
  } catch (error) {
    throw writeError(path, error);
  }
}

/** The export starts: empty a regular file (devices such as /dev/null cannot be, and need not be). */
export async function beginOutputFile(file: OutputFile): Promise<void> {
  let stats: Stats;
  try {
    stats = await file.handle.stat();
    if (stats.isFile()) await file.handle.truncate(0);
  } catch (error) {
    throw writeError(file.path, error);
  }
}

/** The export never started: give back the file as it was (or no file at all). */
export async function abandonOutputFile(file: OutputFile): Promise<void> {
  await file.handle.close().catch(() => undefined);
  if (file.created) await fsp.unlink(file.path).catch(() => undefined);
}

// Writing lines into a pipe so that whatever the reader has got ends at a line boundary, even when
// the process is stopped while the reader is not reading.
//
// On Linux, Node's stdout on a pipe is non-blocking: write() queues in the process and libuv hands
// the queue to the kernel as the pipe takes it, often cutting it mid-line. A process that exits
// then (a signal) leaves the reader half a line: NDJSON that no longer parses. The kernel takes a
// write of at most PIPE_BUF bytes into a pipe whole or not at all (POSIX), so the stream is made to
// give the pipe pieces of at most PIPE_BUF bytes that end at a line break, one at a time (the
// platform's PIPE_BUF: 4096 on Linux, 512 on macOS, platform/platform.ts). Whatever
// the process has in hand when it must stop is then simply dropped: the reader has whole lines.
// A line longer than PIPE_BUF cannot go in one atomic write: settle() gives it a short grace.
//
// The stream itself is kept (process.stdout, or a socket on a FIFO) and only its _write is
// wrapped: everything that already holds it, its error handlers and its callbacks stay as they are,
// and node:stream need not be loaded for a command that never writes to a pipe.
import type { Writable } from 'node:stream';

/** Linux's value: writes up to this size into a pipe are atomic there. */
export const PIPE_BUF = 4096;

const NEWLINE = 0x0a;

type WriteCallback = (error?: Error | null) => void;

/** The part of a Writable's implementation that is wrapped. */
type Implementation = Writable & {
  _write(chunk: unknown, encoding: BufferEncoding, callback: WriteCallback): void;
  _writev?: unknown;
};

export interface LineAlignment {
  /** Line breaks the system has confirmed written (one more piece may have landed unconfirmed). */
  readonly linesWritten: number;
  /**
   * The process is about to exit: nothing more goes out but the rest of a line in progress. Resolves
   * once what the reader can get ends at a line boundary, or after `graceMs` in any case; at once
   * when the piece in flight is atomic (it lands whole, or not at all) and no line is left open.
   */
  settle(graceMs: number): Promise<void>;
}

/** A piece handed to the system and not yet confirmed. */
interface InFlight {
  /** The kernel takes it whole or not at all. */
  atomic: boolean;
  endsLine: boolean;
}

/**
 * Makes `stream` write what it is given as line-aligned pieces of at most PIPE_BUF bytes, one at a
 * time. `atomic`: whether the target takes such a piece whole or not at all: true for a pipe, and
 * for a UNIX socket on Linux (a write that small is one socket buffer there); false over TCP.
 */
export function alignLines(stream: Writable, options: { atomic: boolean; pipeBuf?: number }): LineAlignment {
  const pipeBuf = options.pipeBuf ?? PIPE_BUF;
  const target = stream as Implementation;
  const writeOne = target._write.bind(target);
  let inFlight: InFlight | undefined;
  /** What the system confirmed so far ends mid-line. */
  let lineOpen = false;
  let stopping = false;
  let wake: (() => void) | undefined;
  let linesWritten = 0;

  const settled = (): void => {
    const done = wake;
    wake = undefined;
    done?.();
  };

  const pump = (chunk: Buffer, from: number, callback: WriteCallback): void => {
    if (from >= chunk.length) return callback();
    let end = pieceEnd(chunk, from, pipeBuf);
    if (stopping) {
      // Only the rest of the line in progress still goes out; the callback is never called, so
      // nothing queued behind it follows.
      if (!lineOpen) return settled();
      const lineEnd = chunk.indexOf(NEWLINE, from);
      end = lineEnd === -1 ? chunk.length : lineEnd + 1;
    }
    const piece = chunk.subarray(from, end);
    const endsLine = piece[piece.length - 1] === NEWLINE;
    inFlight = { atomic: options.atomic && piece.length <= pipeBuf, endsLine };
    writeOne(piece, 'buffer' as BufferEncoding, (error) => {
      inFlight = undefined;
      if (error) return callback(error);
      linesWritten += countLines(piece);
      lineOpen = !endsLine;
      if (stopping && !lineOpen) return settled();
      pump(chunk, end, callback);
    });
  };

  target._write = (chunk: unknown, encoding: BufferEncoding, callback: WriteCallback): void => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, encoding) : (chunk as Buffer);
    pump(bytes, 0, callback);
  };
  // Several queued writes would otherwise go out as one writev, which the kernel may cut anywhere.
  target._writev = undefined;

  return {
    get linesWritten() {
      return linesWritten;
    },
    settle(graceMs: number): Promise<void> {
      stopping = true;
      const safeNow = inFlight === undefined ? !lineOpen : inFlight.atomic && inFlight.endsLine && !lineOpen;
      if (safeNow) return Promise.resolve();
      return new Promise((resolve) => {
        const timer = setTimeout(done, graceMs);
        timer.unref();
        function done(): void {
          clearTimeout(timer);
          resolve();
        }
        wake = done;
      });
    },
  };
}

/**
 * Where the next piece from `from` ends: after the last line break within PIPE_BUF bytes; a tail
 * with no line break goes on its own; a line longer than PIPE_BUF goes whole, as one write that
 * cannot be atomic.
 */
function pieceEnd(chunk: Buffer, from: number, pipeBuf: number): number {
  const limit = Math.min(from + pipeBuf, chunk.length);
  if (limit === chunk.length && chunk[limit - 1] === NEWLINE) return limit;
  const lastBreak = chunk.lastIndexOf(NEWLINE, limit - 1);
  if (lastBreak >= from) return lastBreak + 1;
  if (limit === chunk.length) return limit;
  const lineEnd = chunk.indexOf(NEWLINE, limit);
  return lineEnd === -1 ? chunk.length : lineEnd + 1;
}

function countLines(piece: Buffer): number {
  let count = 0;
  for (let i = piece.indexOf(NEWLINE); i !== -1; i = piece.indexOf(NEWLINE, i + 1)) count++;
  return count;
}

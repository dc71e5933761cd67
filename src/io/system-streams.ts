// The process's standard streams, each built the first time something uses it.
//
// Node builds process.stdin, stdout and stderr on first access, and building one loads Node's
// stream code, and for a pipe its network code as well: a cost of the same order as Node's own
// start-up (`npm run bench` measures both). A command that prints a JSON body needs stdout only; help piped to a pager or
// a file needs none of them. So nothing here touches a stream until it is written to, and help
// goes straight to the file descriptor when that is not a terminal.
//
// stdout on a pipe (or a UNIX socket) gets whole lines only, even when the process is stopped
// while its reader is not reading (see line-pipe.ts).
//
// With src/main.ts, the only module that touches `process`.
import { fstatSync, statSync, writeSync } from 'node:fs';
import type { RawStreams, Stdin } from './io.js';
import { hostPlatform } from '../platform/host.js';
import { pipeBufferSize } from '../platform/platform.js';
import { alignLines, type LineAlignment } from './line-pipe.js';

type ErrorHandler = (error: NodeJS.ErrnoException) => void;
type Name = 'stdout' | 'stderr';

export interface SystemStreams extends RawStreams {
  /**
   * The process is about to exit on a signal: stdout's reader gets nothing more but the rest of a
   * line in progress. Resolves once what it can get ends at a line boundary: at once, unless a
   * line longer than PIPE_BUF is in flight (that one gets `graceMs`).
   */
  settleStdout(graceMs: number): Promise<void>;
  /** stdout if anything has written to it (then it may hold unflushed output), else undefined. */
  builtStdout(): NodeJS.WriteStream | undefined;
}

export function systemStreams(): SystemStreams {
  const handlers: { [name in Name]?: ErrorHandler } = {};
  const built: { [name in Name]: boolean } = { stdout: false, stderr: false };
  const terminalGuess = new Map<number, boolean>();
  let stdoutLines: LineAlignment | undefined;

  const stream = (name: Name): NodeJS.WriteStream => {
    const s = process[name];
    if (!built[name]) {
      built[name] = true;
      if (name === 'stdout') stdoutLines = alignIfPipe(s);
      const handler = handlers[name];
      if (handler) s.on('error', handler);
    }
    return s;
  };

  /**
   * Whether fd 1 or 2 may be a terminal, told from a stat rather than by building the stream: only
   * a character device can be one, and /dev/null, the usual character device that is not, is told
   * apart by its device number. When in doubt, true: the caller then asks the stream itself.
   */
  const mayBeTerminal = (fd: 1 | 2): boolean => {
    let guess = terminalGuess.get(fd);
    if (guess === undefined) {
      try {
        const stats = fstatSync(fd);
        guess = stats.isCharacterDevice() && stats.rdev !== statSync('/dev/null').rdev;
      } catch {
        guess = true;
      }
      terminalGuess.set(fd, guess);
    }
    return guess;
  };

  const isTTY = {
    get stdin() {
      return process.stdin.isTTY === true;
    },
    get stdout() {
      return mayBeTerminal(1) && stream('stdout').isTTY === true;
    },
    get stderr() {
      return mayBeTerminal(2) && stream('stderr').isTTY === true;
    },
  };

  return {
    get stdin(): Stdin {
      return process.stdin;
    },
    get stdout() {
      return stream('stdout');
    },
    get stderr() {
      return stream('stderr');
    },
    isTTY,
    // A terminal whose size was never set (a pty from `script`, a serial line) says 0 columns.
    get columns() {
      return (isTTY.stdout && stream('stdout').columns) || 80;
    },
    // Asked of the terminal at each read (each frame of a live line): see windowSize.
    get stderrColumns() {
      return (isTTY.stderr && (windowSize(stream('stderr'))?.[0] || stream('stderr').columns)) || 80;
    },
    get stderrRows() {
      return (isTTY.stderr && (windowSize(stream('stderr'))?.[1] || stream('stderr').rows)) || 24;
    },
    // Node's terminal streams refresh their size on SIGWINCH and say so with 'resize'.
    onStderrResize(listener) {
      if (!isTTY.stderr) return () => undefined;
      const s = stream('stderr');
      s.on('resize', listener);
      return () => void s.off('resize', listener);
    },
    mayBeTerminal,
    onError(on) {
      for (const name of ['stdout', 'stderr'] as const) {
        handlers[name] = on[name];
        if (built[name]) process[name].on('error', on[name]);
      }
    },
    /**
     * When fd 1 is not a terminal and the stream does not exist yet, the text goes to it directly
     * and synchronously; a failure is then handled just as the stream's 'error' would be.
     */
    writeHelp(text) {
      if (built.stdout || mayBeTerminal(1)) {
        stream('stdout').write(text);
        return;
      }
      const bytes = Buffer.from(text);
      let offset = 0;
      try {
        while (offset < bytes.length) offset += writeSync(1, bytes, offset);
      } catch (error) {
        const failure = error as NodeJS.ErrnoException;
        // A non-blocking pipe that is full: the stream waits for it to drain.
        if (failure.code === 'EAGAIN') return void stream('stdout').write(bytes.subarray(offset));
        if (!handlers.stdout) throw failure;
        handlers.stdout(failure);
      }
    },
    flush() {
      if (!built.stdout) return Promise.resolve();
      const out = process.stdout;
      if (out.destroyed || out.writableEnded) return Promise.resolve();
      return new Promise((resolve) => {
        out.write('', () => setImmediate(resolve));
      });
    },
    settleStdout(graceMs) {
      return stdoutLines ? stdoutLines.settle(graceMs) : Promise.resolve();
    },
    builtStdout() {
      return built.stdout ? process.stdout : undefined;
    },
  };
}

/** Files and terminals Node writes synchronously; a pipe or a socket is written in whole lines. */
function alignIfPipe(s: NodeJS.WriteStream): LineAlignment | undefined {
  let pipe: boolean;
  let socket: boolean;
  try {
    const stats = fstatSync(1);
    pipe = stats.isFIFO();
    socket = stats.isSocket();
  } catch {
    return undefined;
  }
  if (!pipe && !socket) return undefined;
  // Node gives a UNIX socket a Pipe handle and TCP a TCP one: only the former takes small writes whole.
  const handle = (s as { _handle?: { constructor?: { name?: string } } })._handle;
  return alignLines(s, { atomic: pipe || handle?.constructor?.name === 'Pipe', pipeBuf: pipeBufferSize(hostPlatform()) });
}

/**
 * The terminal's size now. The stream's own `columns` is refreshed only when Node handles SIGWINCH:
 * a frame drawn between the resize and that moment used the old width, and wrapped; a process
 * outside the terminal's foreground group (`crawl job watch … &`) never gets the signal at all.
 * The tty handle asks the terminal itself (`WriteStream#getWindowSize()` returns the cached size).
 */
function windowSize(stream: NodeJS.WriteStream): [columns: number, rows: number] | undefined {
  const handle = (stream as unknown as { _handle?: { getWindowSize?: (size: number[]) => number } })._handle;
  const size: number[] = [];
  if (typeof handle?.getWindowSize !== 'function' || handle.getWindowSize(size) !== 0) return undefined;
  const [columns = 0, rows = 0] = size;
  return columns > 0 ? [columns, rows] : undefined;
}

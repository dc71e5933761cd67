import { InterruptedError, UsageError } from '../errors.js';
import { isWindows, type Platform } from '../platform/platform.js';
import { canPrompt, type IO } from './io.js';

/**
 * Questions to a person at a terminal. Prompts go to stderr; a prompt is never required: when
 * input is impossible (no TTY, --no-input) the caller gets a usage error naming the flag to use.
 */
export class Prompter {
  readonly #io: IO;
  readonly #interrupt: AbortSignal;

  constructor(io: IO, interrupt: AbortSignal) {
    this.#io = io;
    this.#interrupt = interrupt;
  }

  get available(): boolean {
    return canPrompt(this.#io);
  }

  /** y/N question; anything but y/yes is no. */
  async confirm(question: string, flagHint: string): Promise<boolean> {
    if (!this.available) throw new UsageError(`${question.replace(/\?$/, '')}: confirmation needed`, flagHint);
    this.#io.stderr.write(`? ${question} [y/N] `);
    const answer = await this.#readLine(false);
    return /^y(es)?$/i.test(answer.trim());
  }

  /** A line typed without echo (for keys). */
  async secret(question: string, flagHint: string): Promise<string> {
    if (!this.available) throw new UsageError('cannot prompt for the key here', flagHint);
    try {
      return await this.#readLine(true, `? ${question} `);
    } finally {
      // Nothing typed was echoed, not even the Enter (nor a Ctrl-C): the line is ended here.
      this.#io.stderr.write('\n');
    }
  }

  #readLine(hidden: boolean, prompt?: string): Promise<string> {
    const stdin = this.#io.stdin;
    return new Promise((resolve, reject) => {
      let buffer = '';
      const raw = hidden && typeof stdin.setRawMode === 'function';
      if (raw) stdin.setRawMode?.(true);
      // Only once echo is off: a key pasted the moment the prompt shows must not be echoed.
      if (prompt !== undefined) this.#io.stderr.write(prompt);
      const finish = (error?: Error, lineEnded = true): void => {
        stdin.off('data', onData);
        stdin.off('end', onEnd);
        this.#interrupt.removeEventListener('abort', onAbort);
        if (raw) stdin.setRawMode?.(false);
        stdin.pause();
        // Ctrl-C or Ctrl-D leave the cursor after the question: end its line, so whatever comes
        // next (an error, the shell's prompt) starts on a line of its own.
        if (!lineEnded && !hidden) this.#io.stderr.write('\n');
        if (error) reject(error);
        else resolve(buffer);
      };
      const onData = (chunk: Buffer | string): void => {
        for (const ch of chunk.toString('utf8')) {
          if (ch === '\u0003') return finish(new InterruptedError(), false);
          if (ch === '\r' || ch === '\n') return finish();
          if (ch === '\u007f' || ch === '\b') buffer = buffer.slice(0, -1);
          else buffer += ch;
        }
      };
      const onEnd = (): void => finish(undefined, false);
      const onAbort = (): void => finish(this.#interrupt.reason as Error, false);
      stdin.on('data', onData);
      stdin.on('end', onEnd);
      this.#interrupt.addEventListener('abort', onAbort, { once: true });
      stdin.resume();
    });
  }
}

/** Ctrl-Z, which a Windows console sends as a character: Node sees `1A 0D 0A`, never the end of input. */
const CTRL_Z = '\x1a';

/**
 * Reads all of stdin (for `--with-key`), trimmed; a bounded read so a stray pipe cannot eat
 * memory. Ctrl-C ends it at once (a terminal's input ends only when the user says so), and on a
 * terminal ends the line being typed. At a Windows console, a line that holds Ctrl-Z ends it too
 * (what is before the Ctrl-Z is kept): the console's end of input, which Node passes on as text.
 */
export function readAllStdin(io: IO, interrupt: AbortSignal, options: { platform: Pick<Platform, 'os'>; max?: number }): Promise<string> {
  const stdin = io.stdin;
  const max = options.max ?? 64 * 1024;
  const endsAtCtrlZ = io.stdinIsTTY && isWindows(options.platform);
  return new Promise((resolve, reject) => {
    if (interrupt.aborted) return reject(interrupt.reason as Error);
    let text = '';
    const done = (error?: Error): void => {
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      stdin.off('error', onError);
      interrupt.removeEventListener('abort', onAbort);
      stdin.pause();
      if (error) reject(error);
      else resolve(text.trim());
    };
    const onData = (chunk: Buffer | string): void => {
      text += chunk.toString();
      const ctrlZ = endsAtCtrlZ ? text.indexOf(CTRL_Z) : -1;
      if (ctrlZ >= 0 && text.includes('\n', ctrlZ)) {
        text = text.slice(0, ctrlZ);
        return done();
      }
      if (text.length > max) done(new UsageError('standard input is too long for a key'));
    };
    const onEnd = (): void => done();
    const onError = (error: Error): void => done(error);
    const onAbort = (): void => {
      if (io.stdinIsTTY) io.stderr.write('\n');
      done(interrupt.reason as Error);
    };
    stdin.on('data', onData);
    stdin.on('end', onEnd);
    stdin.on('error', onError);
    interrupt.addEventListener('abort', onAbort, { once: true });
    stdin.resume();
  });
}

import type { Writable } from 'node:stream';

const HIDE_CURSOR = '\u001b[?25l';
const SHOW_CURSOR = '\u001b[?25h';
const CLEAR_LINE = '\r\u001b[2K';

/**
 * One line on a terminal redrawn in place (stderr), for progress. It hides the cursor while
 * shown and always gives it back: on done(), and via the cleanup the caller registers for Ctrl-C.
 */
export class LiveLine {
  readonly #stream: Writable;
  #text = '';
  #active = false;

  constructor(stream: Writable) {
    this.#stream = stream;
  }

  update(text: string): void {
    if (!this.#active) {
      this.#stream.write(HIDE_CURSOR);
      this.#active = true;
    }
    this.#text = text;
    this.#stream.write(CLEAR_LINE + text);
  }

  /** Prints a message above the live line, then redraws it. */
  message(line: string): void {
    if (this.#active) this.#stream.write(CLEAR_LINE);
    this.#stream.write(line + '\n');
    if (this.#active) this.#stream.write(this.#text);
  }

  /** Leaves the last state on screen (keep) or erases it, and restores the cursor. */
  done(keep = true): void {
    if (!this.#active) return;
    this.#stream.write(keep ? '\n' : CLEAR_LINE);
    this.#stream.write(SHOW_CURSOR);
    this.#active = false;
  }
}

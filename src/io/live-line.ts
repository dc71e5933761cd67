import type { TextWriter } from './redacting-writer.js';

const HIDE_CURSOR = '\u001b[?25l';
const SHOW_CURSOR = '\u001b[?25h';
const CLEAR_LINE = '\r\u001b[2K';

/**
 * One line on a terminal redrawn in place (stderr), for progress. It hides the cursor while
 * shown and always gives it back: on done(), and via the cleanup the caller registers for Ctrl-C.
 * Each redraw is one write, so the line reaches the redactor whole.
 */
export class LiveLine {
  readonly #stream: TextWriter;
  #text = '';
  #active = false;

  constructor(stream: TextWriter) {
    this.#stream = stream;
  }

  update(text: string): void {
    const hide = this.#active ? '' : HIDE_CURSOR;
    this.#active = true;
    this.#text = text;
    this.#stream.write(hide + CLEAR_LINE + text);
  }

  /** Prints a message above the live line, then redraws it. */
  message(line: string): void {
    this.#stream.write(this.#active ? `${CLEAR_LINE}${line}\n${this.#text}` : `${line}\n`);
  }

  /** Leaves the last state on screen (keep) or erases it, and restores the cursor. */
  done(keep = true): void {
    if (!this.#active) return;
    this.#stream.write((keep ? '\n' : CLEAR_LINE) + SHOW_CURSOR);
    this.#active = false;
  }
}

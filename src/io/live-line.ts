import type { TextWriter } from './redacting-writer.js';

const HIDE_CURSOR = '\u001b[?25l';
const SHOW_CURSOR = '\u001b[?25h';
/** To the line's first column, then clear from there to the end of the screen. */
const CLEAR_FROM_START = '\r\u001b[J';

/**
 * One line on a terminal redrawn in place (stderr), for progress. It hides the cursor while
 * shown and always gives it back: on done(), and via the cleanup the caller registers for Ctrl-C.
 * Each redraw is one write, so the line reaches the redactor whole.
 *
 * The hidden cursor is parked at the line's start, not its end. When the terminal narrows, some
 * terminals rewrap the line onto more rows (tmux, VTE, iTerm2, Windows Terminal) and some cut it
 * (xterm, VS Code's); either way the line still starts at the cursor, so clearing from there to
 * the end of the screen takes all of it and nothing above it. A cursor left at the end would
 * need to know how many rows the line now takes, which differs between the two kinds.
 * Callers fit the text to the width: a line that wraps as it is drawn is cleared all the same.
 */
/** From the end of `text` back to its first column: up a row for each line break, then to column 0. */
function backToStart(text: string): string {
  let breaks = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) breaks++;
  return breaks === 0 ? '\r' : `\u001b[${breaks}A\r`;
}

export class LiveLine {
  readonly #stream: TextWriter;
  #text = '';
  #active = false;

  constructor(stream: TextWriter) {
    this.#stream = stream;
  }

  /**
   * Draws `text`: one line, or a block of lines (each fitted to the width by the caller, and no
   * more of them than the terminal has rows), after which the cursor goes back to the block's start.
   */
  update(text: string): void {
    const hide = this.#active ? '' : HIDE_CURSOR;
    this.#active = true;
    this.#text = text;
    this.#stream.write(`${hide}${CLEAR_FROM_START}${text}${backToStart(text)}`);
  }

  /** Prints a message above the live line, then redraws it. */
  message(line: string): void {
    this.#stream.write(this.#active ? `${CLEAR_FROM_START}${line}\n${this.#text}${backToStart(this.#text)}` : `${line}\n`);
  }

  /** Leaves the last state on screen (keep) or erases it, and restores the cursor. Once. */
  done(keep = true): void {
    if (!this.#active) return;
    this.#active = false;
    this.#stream.write(`${CLEAR_FROM_START}${keep ? `${this.#text}\n` : ''}${SHOW_CURSOR}`);
  }
}

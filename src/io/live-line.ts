import type { TextWriter } from './redacting-writer.js';

const HIDE_CURSOR = '\u001b[?25l';
const SHOW_CURSOR = '\u001b[?25h';
/** The whole row the cursor is on, whatever its column. */
const ERASE_ROW = '\u001b[2K';

/** What the display needs to know of the terminal to tell how many rows its last frame takes now. */
export interface LiveLineMeasure {
  /** The terminal's width now (it changes: read at each frame). */
  columns(): number;
  /** Columns a line takes (colour codes none, wide characters two). */
  width(text: string): number;
}

/**
 * One line on a terminal redrawn in place (stderr), for progress, or a block of lines (the jobs of
 * a watch). It hides the cursor while shown and always gives it back: on done(), and via the
 * cleanup the caller registers for Ctrl-C. Each frame is one write, so a line reaches the
 * redactor whole.
 *
 * A frame erases only the rows the display owns, one by one (ESC [2K), never the rest of the
 * screen: an erase to the end of the screen from the top row is a clear screen to tmux, which
 * (3.3 and later, by default) then copies the whole screen into its scrollback at every frame.
 *
 * The hidden cursor is parked at the block's first column, not its end. When the terminal
 * narrows, some terminals rewrap the rows drawn (tmux, VTE, iTerm2, Windows Terminal) and some
 * cut them (xterm, VS Code's); either way the block still starts at the cursor. The next frame
 * counts the rows each line drawn takes at the new width (it was drawn no wider than the width
 * then: callers fit each frame), erases that many, and draws lines fitted anew: a rewrapped
 * remnant is erased, and on a terminal that cut the lines a row too many is (a blank one).
 */
export class LiveLine {
  readonly #stream: TextWriter;
  readonly #measure: LiveLineMeasure | undefined;
  #lines: string[] = [];
  #drawnAt = 0;
  #active = false;

  constructor(stream: TextWriter, measure?: LiveLineMeasure) {
    this.#stream = stream;
    this.#measure = measure;
  }

  /**
   * Draws `text`: one line, or a block of lines (each fitted to the width by the caller, and no
   * more of them than the terminal has rows), after which the cursor goes back to the block's start.
   */
  update(text: string): void {
    const hide = this.#active ? '' : HIDE_CURSOR;
    const owned = this.#ownedRows();
    this.#active = true;
    this.#show(text.split('\n'));
    this.#stream.write(`${hide}${paint(this.#lines, owned, 0)}`);
  }

  /** Prints a message above the live line, then redraws it. */
  message(line: string): void {
    if (!this.#active) {
      this.#stream.write(`${line}\n`);
      return;
    }
    const owned = this.#ownedRows();
    this.#show(this.#lines);
    // The rows owned are erased first: a message is not fitted to the width, and one that wraps
    // must not leave the end of an old row beside it. It stays; the block is drawn below it.
    this.#stream.write(`${paint([], owned, 0)}${line}\n${paint(this.#lines, 0, 0)}`);
  }

  /** Leaves the last state on screen (keep) or erases it, and restores the cursor. Once. */
  done(keep = true): void {
    if (!this.#active) return;
    const owned = this.#ownedRows();
    this.#active = false;
    const lines = keep ? this.#lines : [];
    // Kept: the cursor ends on the row after the block, where the next output begins.
    const rows = Math.max(lines.length, owned);
    const end = keep ? `${rowsOf(lines, rows)}${up(rows - lines.length)}\n` : paint(lines, owned, 0);
    this.#stream.write(`${end}${SHOW_CURSOR}`);
  }

  #show(lines: string[]): void {
    this.#lines = lines;
    this.#drawnAt = this.#measure?.columns() ?? 0;
  }

  /** The rows the last frame takes on the screen now: more than its lines when the terminal has narrowed since. */
  #ownedRows(): number {
    if (!this.#active) return 0;
    const measure = this.#measure;
    const columns = measure?.columns() ?? 0;
    if (!measure || columns <= 0 || columns >= this.#drawnAt) return this.#lines.length;
    let rows = 0;
    for (const line of this.#lines) rows += Math.max(1, Math.ceil(Math.min(measure.width(line), this.#drawnAt) / columns));
    return rows;
  }
}

/**
 * One frame: `lines` written from the block's first row (where the cursor is) down, each on a row
 * erased first, then the rest of the `owned` rows erased; the cursor is left at the start of row
 * `park` of what was drawn.
 */
function paint(lines: readonly string[], owned: number, park: number): string {
  const rows = Math.max(lines.length, owned);
  return `${rowsOf(lines, rows)}${up(rows - 1 - park)}\r`;
}

/** `rows` rows from the cursor's down, each erased, the first ones holding `lines`; the cursor ends on the last. */
function rowsOf(lines: readonly string[], rows: number): string {
  let out = '';
  for (let row = 0; row < rows; row++) out += `${row === 0 ? '\r' : '\n'}${ERASE_ROW}${lines[row] ?? ''}`;
  return out;
}

function up(rows: number): string {
  return rows > 0 ? `\u001b[${rows}A` : '';
}

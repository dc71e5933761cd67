import type { Deps } from '../../../deps.js';
import { LiveLine } from '../../../io/live-line.js';
import type { TerminalText } from '../../../io/terminal-text.js';

/**
 * A live line (or block of lines) that `draw` makes anew: redrawn as time passes (the spinner,
 * the elapsed time), at once when the terminal is resized, and left on screen once by stop(),
 * which both Ctrl-C's cleanup and the watch's own end call.
 */
export class Redrawn {
  readonly text: TerminalText;
  readonly #line: LiveLine;
  readonly #deps: Deps;
  readonly #draw: () => string | undefined;
  readonly #stopTicker: () => void;
  readonly #stopResize: () => void;
  #stopped = false;

  /** `draw` gives the text to show, fitted to `deps.io.stderrColumns`; undefined while there is nothing yet. */
  constructor(deps: Deps, text: TerminalText, draw: () => string | undefined) {
    this.#deps = deps;
    this.text = text;
    this.#draw = draw;
    this.#line = new LiveLine(deps.io.stderr, { columns: () => deps.io.stderrColumns, width: (line) => text.width(line) });
    this.#stopTicker = deps.clock.every(250, () => this.redraw());
    this.#stopResize = deps.io.onStderrResize(() => this.redraw());
  }

  redraw(): void {
    if (this.#stopped) return;
    const text = this.#draw();
    if (text !== undefined) this.#line.update(text);
  }

  /** A line above the live one (a warning): it stays, and the live line is drawn again below it. */
  message(line: string): void {
    if (this.#stopped) this.#deps.io.stderr.write(line + '\n');
    else this.#line.message(line);
  }

  stop(): void {
    if (this.#stopped) return;
    this.#stopTicker();
    this.#stopResize();
    this.redraw();
    this.#stopped = true;
    this.#line.done(true);
  }
}

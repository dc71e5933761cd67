// Text fitted to a terminal's width: measured, cut and wrapped by display width. string-width
// (and cli-truncate) take tens of milliseconds to load, so they load only here, on first use:
// when a table or a field view is drawn on a terminal. A status read for a script (--json, a
// pipe) and help never load them.
import type { CutAt } from './cli-truncate.js';
import { wrapWords } from '../text/wrap.js';

export type { CutAt };

export interface TerminalText {
  /** Columns the text takes (colour codes none, wide characters and emoji two). */
  width(text: string): number;
  /** Cut with `…` to at most `columns` columns; as it is when it fits. */
  truncate(text: string, columns: number, at?: CutAt): string;
  /** Lines of at most `columns` columns, broken at spaces; a word longer than a line is cut. */
  wrap(text: string, columns: number): string[];
}

let loading: Promise<TerminalText> | undefined;

export function loadTerminalText(): Promise<TerminalText> {
  loading ??= Promise.all([import('./string-width.js'), import('./cli-truncate.js')]).then(([{ displayWidth }, { truncateToWidth }]) => ({
    width: displayWidth,
    truncate: truncateToWidth,
    wrap: (text, columns) => wrapWords(text, columns, displayWidth).map((line) => truncateToWidth(line, columns)),
  }));
  return loading;
}

/**
 * True when text surely fits in `columns` without measuring it: no character takes more than two
 * columns per UTF-16 unit. Lets short output skip loading the measuring code.
 */
export function surelyFits(text: string, columns: number): boolean {
  return 2 * text.length <= columns;
}

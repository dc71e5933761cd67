// The cli-truncate package, and the only module that imports it (one module a package). Loaded
// only through terminal-text.ts, when something is fitted to a terminal's width.
import cliTruncate from 'cli-truncate';
import { displayWidth } from './string-width.js';

export type CutAt = 'end' | 'middle' | 'start';

/**
 * `text` cut with `…` to at most `columns` columns (as wide as it is when it fits). cli-truncate
 * keeps colour codes whole and closes them, so a cut never leaves half an escape sequence. It can
 * still end a cut one column too wide, when a wide (CJK) character straddles the limit: the
 * result is measured again and cut shorter until it fits.
 */
export function truncateToWidth(text: string, columns: number, at: CutAt = 'end'): string {
  if (columns <= 0) return '';
  if (displayWidth(text) <= columns) return text;
  for (let room = columns; room > 0; room--) {
    const cut = cliTruncate(text, room, { position: at });
    if (displayWidth(cut) <= columns) return cut;
  }
  return '';
}

// The string-width package, and the only module that imports it (one module a package). Loaded
// only through terminal-text.ts, when something is fitted to a terminal's width.
import stringWidth from 'string-width';

/**
 * How many terminal columns text takes: ANSI colour codes none, East Asian wide and fullwidth
 * characters and emoji (a whole ZWJ sequence, a flag, a keycap) two, combining marks and
 * invisible format characters none.
 */
export function displayWidth(text: string): number {
  // Printable ASCII (most cells of a table: ids, statuses, numbers, dates) is a column a character.
  return PRINTABLE_ASCII.test(text) ? text.length : stringWidth(text);
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

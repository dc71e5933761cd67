// The string-width package, and the only module that imports it (one module a package). Loaded
// only through terminal-text.ts, when something is fitted to a terminal's width.
import stringWidth from 'string-width';

/**
 * How many terminal columns text takes: ANSI colour codes none, East Asian wide and fullwidth
 * characters and emoji (a whole ZWJ sequence, a flag, a keycap) two, combining marks and
 * invisible format characters none.
 */
export function displayWidth(text: string): number {
  return stringWidth(text);
}

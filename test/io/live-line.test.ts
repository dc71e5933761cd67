// The live line (or block) erases only the rows it owns: never the rest of the screen, which tmux
// takes for a clear and copies into its scrollback at every frame. What a terminal shows is read
// on the headless emulator of test/support/screen.ts, including what tmux would have copied.
import { describe, expect, it } from 'vitest';
import { LiveLine } from '../../src/io/live-line.js';
import { displayWidth } from '../../src/io/string-width.js';
import { screenOf } from '../support/screen.js';

/** A LiveLine over a string, on a terminal whose width the test sets. */
function live(columns: number): { line: LiveLine; output: () => string; resize: (to: number) => void } {
  let out = '';
  let width = columns;
  const line = new LiveLine(
    { write: (text: string, callback?: () => void) => ((out += text), callback?.(), true) },
    { columns: () => width, width: displayWidth },
  );
  return { line, output: () => out, resize: (to) => (width = to) };
}

const ERASE_BELOW = /\u001b\[[02]?J/;

describe('the screen helper sees what tmux copies', () => {
  it('an erase to the end of the screen from the top row counts; from a lower row it does not', async () => {
    expect((await screenOf('a\r\u001b[Jb\r\u001b[Jc', 40)).tmuxScrollbackCopies).toBe(2);
    expect((await screenOf('above\na\r\u001b[Jb\r\u001b[Jc', 40)).tmuxScrollbackCopies).toBe(0);
  });
});

describe('LiveLine', () => {
  it('on the top row, a hundred frames: one row on screen, nothing for tmux to copy', async () => {
    const { line, output } = live(60);
    for (let i = 0; i < 100; i++) line.update(`frame ${i} ${'█'.repeat(i % 20)}`);
    line.done(true);
    expect(output()).not.toMatch(ERASE_BELOW);
    const screen = await screenOf(output(), 60);
    expect(screen.tmuxScrollbackCopies).toBe(0);
    expect(screen.rows).toEqual([`frame 99 ${'█'.repeat(19)}`]);
    expect(screen.cursorVisible).toBe(true);
  });

  it('what was on screen before it stays: only the rows it drew are erased', async () => {
    const { line, output } = live(60);
    line.update('one\ntwo\nthree');
    line.update('one\ntwo');
    line.message('a warning');
    line.update('only');
    line.done(true);
    const screen = await screenOf('before 1\nbefore 2\n' + output() + 'after\n', 60);
    expect(screen.rows).toEqual(['before 1', 'before 2', 'a warning', 'only', 'after']);
  });

  it('a message wider than the terminal wraps over the rows the block had, leaving nothing of them', async () => {
    const { line, output } = live(40);
    line.update(`${'a'.repeat(39)}\n${'b'.repeat(39)}`);
    line.message(`crawl: warning: ${'w'.repeat(44)}`);
    line.update('block');
    line.done(true);
    const screen = await screenOf(output(), 40);
    expect(screen.rows).toEqual([`crawl: warning: ${'w'.repeat(24)}`, 'w'.repeat(20), 'block']);
  });

  it('a block that shrinks leaves no stale row; erased on done(false)', async () => {
    const { line, output } = live(60);
    line.update('a\nb\nc\nd');
    line.update('a');
    let screen = await screenOf('top\n' + output(), 60);
    expect(screen.rows).toEqual(['top', 'a']);
    line.done(false);
    screen = await screenOf('top\n' + output() + 'next\n', 60);
    expect(screen.rows).toEqual(['top', 'next']);
  });

  it('after the terminal narrows, the next frame erases every row the old line now takes', () => {
    const { line, output, resize } = live(80);
    line.update('x'.repeat(70));
    const before = output().length;
    resize(30);
    line.update('y'.repeat(29));
    // 70 columns at 30 a row: 3 rows, erased one by one, then back up to the first.
    expect(output().slice(before)).toBe(`\r\u001b[2K${'y'.repeat(29)}\n\u001b[2K\n\u001b[2K\u001b[2A\r`);
    const after = output().length;
    line.update('z'.repeat(29));
    // Drawn at 30: one row from now on.
    expect(output().slice(after)).toBe(`\r\u001b[2K${'z'.repeat(29)}\r`);
  });

  it('a terminal that rewraps (tmux, VTE): no remnant of the wrapped line, the rows above intact', async () => {
    const { line, output, resize } = live(80);
    line.update('above-the-line\n' + 'w'.repeat(70));
    line.message('kept');
    const drawnAt80 = output().length;
    resize(30);
    line.update('short');
    line.update('final');
    line.done(true);
    // What a rewrapping terminal shows once narrowed: the old block rewrapped into 30 columns, the
    // cursor still at its start (the message above it, drawn at 80, fits).
    const rewrapped = 'kept\n' + 'above-the-line\n' + 'w'.repeat(70) + '\u001b[3A\r';
    const screen = await screenOf(rewrapped + output().slice(drawnAt80), 30);
    expect(screen.rows).toEqual(['kept', 'final']);
    expect(screen.tmuxScrollbackCopies).toBe(0);
  });

  it('a terminal that cuts (xterm): the same frames leave one row', async () => {
    const { line, output, resize } = live(80);
    line.update('c'.repeat(70));
    const at = output().length;
    resize(30);
    line.update('cut');
    line.done(true);
    const screen = await screenOf(output(), 80, [{ at, columns: 30 }]);
    expect(screen.rows).toEqual(['cut']);
  });
});

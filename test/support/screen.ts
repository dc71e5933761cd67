// What a terminal shows after some output: a headless xterm.js (@xterm/headless) fed the bytes,
// resized where the test resized its terminal. Tests of live lines look at the screen rather than
// at escape codes: a stale row, a line drawn twice or a wrap shows there whatever the codes were.
// xterm.js cuts a line when the terminal narrows (as xterm and VS Code's terminal do); terminals
// that rewrap it instead (tmux, VTE) are covered by the same design (src/io/live-line.ts).
import xterm from '@xterm/headless';

export interface Screen {
  /** The rows from the top of the scrollback to the cursor's row, trailing spaces cut, empty last rows dropped. */
  rows: string[];
  cursorVisible: boolean;
  /**
   * How many times tmux would have copied the whole screen into its scrollback: an erase to the
   * end of the screen (ESC [J, ESC [0J) from the top row, or of all of it (ESC [2J), which tmux
   * 3.3 and later (scroll-on-clear, on by default) treat as clearing the screen.
   */
  tmuxScrollbackCopies: number;
}

/**
 * Feeds `output` to a terminal `columns` wide; each `resizes` entry makes it `columns` wide once
 * the first `at` characters of the output are in.
 */
export async function screenOf(output: string, columns: number, resizes: Array<{ at: number; columns: number }> = []): Promise<Screen> {
  const terminal = new xterm.Terminal({ cols: columns, rows: 50, scrollback: 10_000, allowProposedApi: true, convertEol: true });
  const write = (text: string): Promise<void> => new Promise((resolve) => terminal.write(text, resolve));
  let tmuxScrollbackCopies = 0;
  // Seen before xterm.js erases (returning false lets it go on): the cursor's row is still the one the erase starts from.
  terminal.parser.registerCsiHandler({ final: 'J' }, (params) => {
    const mode = typeof params[0] === 'number' ? params[0] : 0;
    if (mode === 2 || (mode === 0 && terminal.buffer.active.cursorY === 0)) tmuxScrollbackCopies++;
    return false;
  });
  let from = 0;
  for (const resize of [...resizes].sort((a, b) => a.at - b.at)) {
    await write(output.slice(from, resize.at));
    terminal.resize(resize.columns, 50);
    from = resize.at;
  }
  await write(output.slice(from));
  const buffer = terminal.buffer.active;
  const rows: string[] = [];
  for (let i = 0; i < buffer.length; i++) rows.push(buffer.getLine(i)?.translateToString(true) ?? '');
  while (rows.length > 0 && rows.at(-1) === '') rows.pop();
  // DECTCEM: xterm.js keeps it as a mode; the last ?25 sequence written decides it.
  const visible = output.lastIndexOf('\u001b[?25l') <= output.lastIndexOf('\u001b[?25h');
  terminal.dispose();
  return { rows, cursorVisible: visible, tmuxScrollbackCopies };
}

/** Rows that show a job's live line: a spinner (a space once the job has ended), a space, the status. */
export function liveRows(rows: string[]): string[] {
  return rows.filter((row) => /^[ ⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] [a-z]/.test(row));
}

// The live line of `job watch` (and of `job pages --wait`) on terminals of many widths, resized
// while it is drawn, and interrupted: what the screen shows, through a terminal emulator
// (test/support/screen.ts). In this process, on memory terminals with a fake clock; the same
// resize through a real pty and SIGWINCH is in test/contract/terminal.test.ts.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTerminalText } from '../../../src/io/terminal-text.js';
import { fitWatchLine } from '../../../src/commands/job/lib/follow.js';
import { displayWidth } from '../../../src/io/string-width.js';
import { tempDir } from '../../support/cli.js';
import { sandboxFixture, type SandboxFixture } from '../../support/sandbox.js';
import { clockWatching } from '../../support/fake-clock.js';
import { crawl, interrupt } from '../../support/harness.js';
import { liveRows, screenOf } from '../../support/screen.js';

let fx: SandboxFixture;
let tmp: { dir: string; cleanup: () => void };
beforeAll(async () => {
  fx = await sandboxFixture({ seed: false });
  tmp = tempDir('crawl-live-line-');
});
afterAll(async () => {
  tmp.cleanup();
  await fx.close();
});

const DRAW = '\r\u001b[J';
const plain = (text: string): string => text.replace(/\u001b\[[0-9;]*m/g, '');

/** Each state the live line was drawn in, as text (colour and the cursor's moves taken out). */
function draws(output: string): string[] {
  return output
    .split(DRAW)
    .slice(1)
    .map((draw) => plain(draw.replace(/\r$/, '').replace(/\n[\s\S]*$/, '')));
}


describe('job watch: the live line fits the terminal', () => {
  it.each([200, 100, 80, 60, 50, 40, 30, 20])('%i columns: every draw within the width; one line left on the screen, then the job', async (columns) => {
    const id = `fit-${columns}`;
    fx.sandbox.addJob({ id, status: 'running', pagesTotal: 120_000, advance: { perPoll: 40_000 } });
    const r = await crawl(['job', 'watch', id], { env: { ...fx.env, LANG: 'en_US.UTF-8' }, tty: true, columns });
    expect(r.code).toBe(0);
    const drawn = draws(r.stderr);
    expect(drawn.length).toBeGreaterThan(3);
    for (const draw of drawn) expect(displayWidth(draw), draw).toBeLessThan(columns);
    const last = drawn.at(-1) ?? '';
    // The bar goes first as the width shrinks, then the elapsed time, then the line is cut.
    expect(last.includes('█'), last).toBe(columns >= 80);
    expect(/\d:\d\d$/.test(last), last).toBe(columns >= 50);
    if (columns >= 50) expect(last).toMatch(/^ {2}completed .*120,000\/120,000 pages \(100%\)/);
    else expect(last).toMatch(/^ {2}completed 120,0.*…$/);

    const screen = await screenOf(r.output, columns);
    expect(liveRows(screen.rows)).toEqual([last.trimEnd()]);
    expect(screen.rows.some((row) => row.includes('running'))).toBe(false);
    expect(screen.rows.some((row) => /^Status\s+completed/.test(row))).toBe(true);
    expect(screen.cursorVisible).toBe(true);
  });

  it('refits at once when the terminal is resized, narrower then wider: no stale row, one line', async () => {
    const id = 'fit-resized';
    fx.sandbox.addJob({ id, status: 'running', pagesTotal: 1_000, advance: { perPoll: 200 } });
    const resizes: Array<{ at: number; columns: number }> = [];
    let streams: { resize(columns: number): void; outputText(): string } | undefined;
    const resize = (columns: number): void => {
      resizes.push({ at: streams?.outputText().length ?? 0, columns });
      streams?.resize(columns);
    };
    const r = await crawl(['job', 'watch', id], {
      env: fx.env,
      tty: true,
      columns: 100,
      onStreams: (s) => (streams = s),
      // After the first poll 100 → 45 columns, after the third 45 → 120.
      clock: clockWatching((_ms, n) => (n === 1 ? resize(45) : n === 3 ? resize(120) : undefined)),
    });
    expect(r.code).toBe(0);
    expect(resizes.map((x) => x.columns)).toEqual([45, 120]);
    const narrow = resizes[0]?.at ?? 0;
    const wide = resizes[1]?.at ?? 0;
    // The resize itself redraws: the output goes on with a draw fitted to the new width.
    expect(r.output.slice(narrow).startsWith(DRAW)).toBe(true);
    for (const draw of draws(r.output.slice(narrow, wide))) expect(displayWidth(draw), draw).toBeLessThan(45);
    expect(draws(r.output.slice(wide))[0]).toContain('█');

    const screen = await screenOf(r.output, 100, resizes);
    expect(liveRows(screen.rows)).toHaveLength(1);
    expect(liveRows(screen.rows)[0]).toMatch(/completed █+ 1,000\/1,000 pages \(100%\)/);
    expect(screen.rows.some((row) => row.includes('running'))).toBe(false);
  });

  it('the line a hostile status makes (wide characters, a very long word) is cut to the width too', async () => {
    const text = await loadTerminalText();
    const line = fitWatchLine({ spinner: '⠋', status: '進行中'.repeat(30), bar: '░'.repeat(24), progress: '1/2 pages (50%)', elapsed: '0:01' }, 49, text);
    expect(text.width(line)).toBeLessThanOrEqual(49);
    expect(line.endsWith('…')).toBe(true);
  });
});

describe('Ctrl-C ends the live line once', () => {
  it('job watch: exit 130, the last state on one line, the cursor back', async () => {
    fx.sandbox.addJob({ id: 'once-watch', status: 'running', pagesTotal: 100, pagesFinished: 1 });
    const controller = new AbortController();
    const r = await crawl(['job', 'watch', 'once-watch'], {
      env: fx.env,
      tty: true,
      signal: controller.signal,
      clock: clockWatching((_ms, n) => n === 2 && interrupt(controller)),
    });
    expect(r.code).toBe(130);
    const screen = await screenOf(r.output, 80);
    expect(liveRows(screen.rows)).toHaveLength(1);
    expect(liveRows(screen.rows)[0]).toMatch(/running [█░]{24} 1\/100 pages \(1%\)/);
    expect(screen.cursorVisible).toBe(true);
    // The line is ended: whatever comes next starts a row of its own.
    expect(r.output.endsWith('\n') || r.output.endsWith('\n\u001b[?25h')).toBe(true);
  });

  it('job pages --wait --output: the same, then what was written', async () => {
    fx.sandbox.addJob({ id: 'once-pages', status: 'running', pagesTotal: 10, pagesFinished: 2 });
    const controller = new AbortController();
    const file = join(tmp.dir, 'once-pages.ndjson');
    const r = await crawl(['job', 'pages', 'once-pages', '--wait', '--output', file], {
      env: fx.env,
      tty: true,
      signal: controller.signal,
      clock: clockWatching((_ms, n) => n === 2 && interrupt(controller)),
    });
    expect(r.code).toBe(130);
    const screen = await screenOf(r.output, 80);
    expect(liveRows(screen.rows)).toHaveLength(1);
    expect(screen.rows.join('')).toMatch(/ pages \(20%\) {2}\d:\d\dcrawl: interrupted before the export began: nothing was written to \//);
    expect(r.output.endsWith(`crawl: interrupted before the export began: nothing was written to ${file}\n`)).toBe(true);
    expect(screen.cursorVisible).toBe(true);
  });
});

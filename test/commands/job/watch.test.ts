// `job watch a b c` on a terminal: a block of live lines whose columns line up (ids, statuses,
// counts), whose finished jobs stop counting time, and which erases only its own rows (nothing
// for tmux to copy into its scrollback). Through the headless terminal of test/support/screen.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxFixture, type SandboxFixture } from '../../helpers/sandbox.js';
import { crawl } from '../../support/harness.js';
import { screenOf } from '../../support/screen.js';

let fx: SandboxFixture;
beforeAll(async () => {
  fx = await sandboxFixture({ seed: false });
});
afterAll(() => fx.close());

const FAST = ['--interval', '1'];
const ERASE_BELOW = /\u001b\[[02]?J/;

/** The rows of the block as the screen shows them at the end: a row each id. */
function blockRows(rows: string[], ids: readonly string[]): string[] {
  return ids.map((id) => rows.find((row) => row.startsWith(`  ${id} `)) ?? `(no row for ${id})`);
}

describe('job watch with several ids, on a terminal', () => {
  it('ids, statuses and counts line up: the bars and the times start in one column', async () => {
    const ids = ['a', 'a-much-longer-job-id', 'mid-id'];
    fx.sandbox.addJob({ id: 'a', status: 'running', pagesTotal: 10, advance: { perPoll: 5 } });
    fx.sandbox.addJob({ id: 'a-much-longer-job-id', status: 'running', pagesTotal: 1000, advance: { perPoll: 250 } });
    fx.sandbox.addJob({ id: 'mid-id', status: 'running', pagesTotal: 100, advance: { perPoll: 25, endStatus: 'errored' } });
    const r = await crawl(['job', 'watch', ...ids, ...FAST], { env: { ...fx.env, LANG: 'en_US.UTF-8' }, tty: true, columns: 120 });
    expect(r.code).toBe(10);
    const rows = blockRows((await screenOf(r.output, 120)).rows, ids);
    const bars = rows.map((row) => row.search(/[█░]/));
    expect(new Set(bars).size, rows.join('\n')).toBe(1);
    const times = rows.map((row) => row.search(/\d+:\d\d$/));
    expect(new Set(times).size, rows.join('\n')).toBe(1);
  });

  it('a job that has finished keeps the time it took; the others count on', async () => {
    const ids = ['quick', 'slow'];
    // quick ends at its second poll (1 s in), slow at its sixth (5 s in).
    fx.sandbox.addJob({ id: 'quick', status: 'running', pagesTotal: 10, advance: { perPoll: 5 } });
    fx.sandbox.addJob({ id: 'slow', status: 'running', pagesTotal: 60, advance: { perPoll: 10 } });
    const r = await crawl(['job', 'watch', ...ids, ...FAST], { env: fx.env, tty: true, columns: 100 });
    expect(r.code).toBe(0);
    expect(r.clock.elapsed()).toBeGreaterThanOrEqual(5000);
    const [quick, slow] = blockRows((await screenOf(r.output, 100)).rows, ids);
    expect(quick).toMatch(/completed .* 0:01$/);
    expect(slow).toMatch(/completed .* 0:0[5-9]$/);
  });

  it('erases only its own rows: no erase to the end of the screen, nothing tmux would copy', async () => {
    const ids = ['top-1', 'top-2'];
    for (const id of ids) fx.sandbox.addJob({ id, status: 'running', pagesTotal: 30, advance: { perPoll: 10 } });
    const r = await crawl(['job', 'watch', ...ids, ...FAST], { env: fx.env, tty: true, columns: 80 });
    expect(r.code).toBe(0);
    expect(r.output).not.toMatch(ERASE_BELOW);
    const screen = await screenOf(r.output, 80);
    expect(screen.tmuxScrollbackCopies).toBe(0);
    for (const id of ids) expect(screen.rows.filter((row) => row.startsWith(`  ${id} `))).toHaveLength(1);
  });
});

describe('job watch of one job', () => {
  it('on the top row of the screen, frame after frame: nothing for tmux to copy', async () => {
    fx.sandbox.addJob({ id: 'top-single', status: 'running', pagesTotal: 100, advance: { perPoll: 10 } });
    const r = await crawl(['job', 'watch', 'top-single', ...FAST], { env: fx.env, tty: true, columns: 80 });
    expect(r.code).toBe(0);
    expect(r.output).not.toMatch(ERASE_BELOW);
    const screen = await screenOf(r.output, 80);
    expect(screen.tmuxScrollbackCopies).toBe(0);
    expect(screen.rows.filter((row) => /top-single|running|completed █/.test(row) && row.startsWith('  completed'))).toHaveLength(1);
  });
});

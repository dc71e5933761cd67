// `job status a b c` and `job watch a b c`: several jobs at once, a row or a live line each, and one
// exit code, the worst (src/commands/job/lib/outcome.ts). In this process, on the sandbox, with a
// fake clock; the live block is checked on a terminal emulator.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { worstOutcome } from '../../../src/commands/job/lib/outcome.js';
import { displayWidth } from '../../../src/io/string-width.js';
import { sandboxFixture, type SandboxFixture } from '../../support/sandbox.js';
import { clockWatching } from '../../support/fake-clock.js';
import { crawl, interrupt } from '../../support/harness.js';
import { screenOf } from '../../support/screen.js';

let fx: SandboxFixture;
beforeAll(async () => {
  fx = await sandboxFixture({ seed: false });
});
afterAll(() => fx.close());

const FAST = ['--interval', '0.5'];
let n = 0;
/** A job of its own for each test: `status` now, or running until it ends as `ends` after `polls` polls. */
function job(status: string, ends?: string, polls = 2): string {
  const id = `many-${++n}-${ends ?? status}`;
  if (ends === undefined) fx.sandbox.addJob({ id, status, pagesTotal: 10, pagesFinished: status === 'completed' ? 10 : 3 });
  else fx.sandbox.addJob({ id, status: 'running', pagesTotal: polls * 5, advance: { perPoll: 5, endStatus: ends } });
  return id;
}
const polls = (id: string, from = 0): number => fx.sandbox.requests.slice(from).filter((q) => q.url === `/api/crawl/${id}`).length;

describe('job status with several ids', () => {
  it('a row each (tab-separated off a terminal), in the order given', async () => {
    const [a, b] = [job('completed'), job('errored')];
    const r = await crawl(['job', 'status', a, b], { env: fx.env });
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').filter(Boolean).map((row) => row.split('\t').slice(0, 4))).toEqual([
      [a, 'completed', '10', '10'],
      [b, 'errored', '3', '10'],
    ]);
  });

  it('--json: NDJSON, each body as received; a missing id reported for itself, the others shown, exit 3', async () => {
    const [a, b] = [job('completed'), job('running')];
    const r = await crawl(['job', 'status', a, 'no-such-job', b, '--json'], { env: fx.env });
    expect(r.code).toBe(3);
    expect(r.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { job: { id: string } }).job.id)).toEqual([a, b]);
    expect(JSON.parse(r.stderr.trim())).toMatchObject({ error: { httpStatus: 404, exitCode: 3, message: expect.stringContaining('job no-such-job: ') } });
  });

  it.each([
    [['completed', 'cancelled_by_user', 'errored', 'cancelled_due_to_limits'], 10],
    [['cancelled_by_user', 'cancelled_due_to_timeout', 'completed'], 12],
    [['completed', 'running'], 7],
    [['completed', 'completed'], 0],
  ] as const)('--exit-status: %j → %i', async (statuses, code) => {
    const r = await crawl(['job', 'status', ...statuses.map((s) => job(s)), '--exit-status'], { env: fx.env });
    expect(r.code).toBe(code);
  });

  it('on a terminal: a table fitted to the width', async () => {
    const ids = [job('completed'), job('running'), job('errored')];
    const r = await crawl(['job', ...ids], { env: fx.env, tty: true, columns: 60 });
    expect(r.code).toBe(0);
    const lines = r.stdout.replace(/\u001b\[[0-9;]*m/g, '').trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+PROGRESS/);
    expect(lines).toHaveLength(4);
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(60);
  });
});

describe('job watch with several ids', () => {
  it('polls each until it ends, finished ones no more; a line a change prefixed by the id; exit: the worst', async () => {
    const done = job('running', 'completed', 1);
    const limits = job('running', 'cancelled_due_to_limits', 3);
    const errored = job('running', 'errored', 2);
    const from = fx.sandbox.requests.length;
    const r = await crawl(['job', 'watch', done, limits, errored, ...FAST], { env: fx.env });
    expect(r.code).toBe(10);
    expect(polls(done, from)).toBe(1);
    expect(polls(errored, from)).toBe(2);
    expect(polls(limits, from)).toBe(3);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toContain(`[0:00] ${done} completed 5/5 pages (100%)`);
    expect(lines.filter((l) => l.includes(` ${limits} `)).at(-1)).toMatch(/cancelled_due_to_limits 15\/15 pages/);
    // Then a row each on stdout, as job status prints them.
    expect(r.stdout.split('\n').filter(Boolean).map((row) => row.split('\t').slice(0, 2))).toEqual([
      [done, 'completed'],
      [limits, 'cancelled_due_to_limits'],
      [errored, 'errored'],
    ]);
    // One wait a round, not one a job.
    expect(r.clock.sleeps).toEqual([500, 500]);
  });

  it('a missing id is reported and the others watched to the end (exit 3); --fail-fast stops at the first failure', async () => {
    const slow = job('running', 'completed', 4);
    const r = await crawl(['job', 'watch', 'gone-job', slow, ...FAST], { env: fx.env });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('crawl: job gone-job: GET /api/crawl/gone-job failed: HTTP 404');
    expect(r.stdout).toContain(`${slow}\tcompleted`);
    const other = job('running', 'completed', 4);
    const errored = job('running', 'errored', 1);
    const from = fx.sandbox.requests.length;
    const fast = await crawl(['job', 'watch', other, errored, ...FAST, '--fail-fast'], { env: fx.env });
    expect(fast.code).toBe(10);
    expect(polls(other, from)).toBe(1);
  });

  it('--json: NDJSON of each changed body, the id in it; --max-wait: exit 7 naming what did not finish', async () => {
    const a = job('running', 'completed', 2);
    const b = job('running', 'completed', 40);
    const r = await crawl(['job', 'watch', a, b, ...FAST, '--max-wait', '2', '--json'], { env: fx.env });
    expect(r.code).toBe(7);
    const ids = r.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { job: { id: string } }).job.id);
    expect(new Set(ids)).toEqual(new Set([a, b]));
    expect(JSON.parse(r.stderr.trim().split('\n').at(-1) ?? '')).toMatchObject({ error: { exitCode: 7, message: expect.stringContaining(`1 of 2 jobs not finished (${b})`) } });
  });

  it('on a terminal: a live line a job, each within the width, the block drawn in place and left once', async () => {
    const ids = [job('running', 'completed', 2), job('running', 'errored', 3), job('running', 'cancelled_by_user', 1)];
    const r = await crawl(['job', 'watch', ...ids, ...FAST], { env: fx.env, tty: true, columns: 60 });
    expect(r.code).toBe(10);
    const screen = await screenOf(r.output, 60);
    for (const id of ids) expect(screen.rows.filter((row) => row.startsWith(`  ${id} `)), id).toHaveLength(1);
    for (const row of screen.rows) expect(displayWidth(row), row).toBeLessThanOrEqual(60);
    expect(screen.rows.some((row) => /running/.test(row))).toBe(false);
    expect(screen.cursorVisible).toBe(true);
  });

  it('more jobs than the terminal has rows: the block keeps to the rows, with a summary line', async () => {
    const ids = Array.from({ length: 30 }, (_, i) => job('running', 'completed', 1 + (i % 3)));
    const r = await crawl(['job', 'watch', ...ids, ...FAST], { env: fx.env, tty: true, columns: 80, rows: 10 });
    expect(r.code).toBe(0);
    const draws = r.stderr.split('\r\u001b[J').slice(1).map((d) => d.replace(/\u001b\[\d+A\r$/, '').replace(/\n\u001b\[\?25h$/, ''));
    for (const draw of draws) expect(draw.split('\n').length).toBeLessThanOrEqual(9);
    expect(draws.at(-1)).toMatch(/\+ 22 more: 22 completed$/);
  });

  it('Ctrl-C: exit 130, the block once on the screen, nothing cancelled', async () => {
    const ids = [job('running', 'completed', 50), job('running', 'completed', 50)];
    const controller = new AbortController();
    const r = await crawl(['job', 'watch', ...ids, ...FAST], {
      env: fx.env,
      tty: true,
      signal: controller.signal,
      clock: clockWatching((_ms, count) => count === 2 && interrupt(controller)),
    });
    expect(r.code).toBe(130);
    const screen = await screenOf(r.output, 80);
    for (const id of ids) expect(screen.rows.filter((row) => row.includes(` ${id} `))).toHaveLength(1);
    expect(fx.sandbox.requests.some((q) => q.method === 'DELETE')).toBe(false);
  });
});

describe('the worst outcome', () => {
  it('a failure first, then errored > limits > timeout > by user > unfinished > completed', () => {
    expect(worstOutcome([{ kind: 'job', code: 10 }, { kind: 'failed', code: 4 }, { kind: 'failed', code: 3 }])).toBe(4);
    expect(worstOutcome([{ kind: 'job', code: 11 }, { kind: 'job', code: 13 }, { kind: 'job', code: 12 }])).toBe(13);
    expect(worstOutcome([{ kind: 'job', code: 0 }, { kind: 'job', code: 7 }, { kind: 'job', code: 11 }])).toBe(11);
    expect(worstOutcome([{ kind: 'job', code: 0 }, { kind: 'job', code: 7 }])).toBe(7);
    expect(worstOutcome([])).toBe(0);
  });
});

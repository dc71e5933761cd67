// `job watch`: polling, its three displays, failures that do and do not end it, --max-wait,
// exit codes of terminal statuses, and Ctrl-C (exit 130, cursor back, job not cancelled).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ndjson, runCli, waitFor } from '../../support/cli.js';
import { sandboxFixture, type SandboxFixture } from '../../support/sandbox.js';
import { fakeClock } from '../../support/fake-clock.js';
import { crawl, interrupt } from '../../support/harness.js';
import { clockWatching } from '../../support/fake-clock.js';

let fx: SandboxFixture;
beforeAll(async () => {
  fx = await sandboxFixture();
});
afterAll(() => fx.close());

const FAST = ['--interval', '0.5'];
/** The default --interval: on the fake clock it costs nothing, and what was slept is asserted. */
const POLL = 2000;
const HIDE = '\u001b[?25l';
const SHOW = '\u001b[?25h';

function requestsOf(id: string) {
  return fx.sandbox.requests.filter((r) => r.url.startsWith(`/api/crawl/${id}`));
}

describe('displays', () => {
  it.concurrent('not a TTY: one plain line on stderr per change (not per poll), then the job on stdout', async ({ expect }) => {
    const job = fx.sandbox.addJob({ id: 'w-plain', status: 'running', pagesTotal: 2 });
    const polls = (): number => requestsOf('w-plain').length;
    // The job moves only every few polls (in the pause after the 3rd and the 6th), so most polls see nothing new.
    const clock = clockWatching((_ms, n) => {
      if (n === 3) job.pagesFinished = 1;
      if (n === 6) Object.assign(job, { pagesFinished: 2, status: 'completed' });
    });
    const r = await runCli(['job', 'watch', 'w-plain'], { env: fx.env, clock });
    expect(r.code).toBe(0);
    expect(clock.sleeps).toEqual(Array(6).fill(POLL));
    expect(r.stderr.replace(/^\[\d+:\d\d\] /gm, '')).toBe(
      'running 0/2 pages (0%)\nrunning 1/2 pages (50%)\ncompleted 2/2 pages (100%)\n',
    );
    expect(polls()).toBeGreaterThanOrEqual(7);
    expect(r.stdout).toContain('id\tw-plain\n');
    expect(r.stdout).toContain('status\tcompleted\n');
  });

  it.concurrent('a TTY: a live line with a progress bar, cursor hidden then shown, then the job', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'w-tty', status: 'running', pagesTotal: 6, advance: { perPoll: 2 } });
    const r = await runCli(['job', 'watch', 'w-tty'], { env: fx.env, tty: true });
    expect(r.code).toBe(0);
    // Three polls (2, 4, 6 of 6), the default interval between them: no real waiting.
    expect(r.clock?.sleeps).toEqual([POLL, POLL]);
    const out = r.stdout;
    expect(out).toContain(HIDE);
    expect(out).toMatch(/running\u001b\[39m [█░]{24} 2\/6 pages \(33%\)/);
    expect(out).toContain('\r\u001b[J');
    const shown = out.lastIndexOf(SHOW);
    expect(shown).toBeGreaterThan(out.lastIndexOf(HIDE));
    expect(out.slice(shown)).toMatch(/Job\s+\S*w-tty/);
    expect(out.slice(shown)).toMatch(/Progress\s+6\/6 pages \(100%\)/);
  });

  it.concurrent('--json: NDJSON of each changed body on stdout; only the job is polled, never its pages', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'w-json', status: 'running', pagesTotal: 9, advance: { perPoll: 3 } });
    const r = await runCli(['job', 'watch', 'w-json', '--json', ...FAST], { env: fx.env });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.clock?.sleeps).toEqual([500, 500]);
    const bodies = ndjson(r.stdout) as Array<{ job: { status: string; pagesFinished: number }; pages: unknown }>;
    expect(bodies.map((b) => `${b.job.status} ${b.job.pagesFinished}`)).toEqual(['running 3', 'running 6', 'completed 9']);
    expect(Array.isArray(bodies.at(-1)?.pages)).toBe(true);
    const urls = requestsOf('w-json').map((q) => `${q.method} ${q.url}`);
    expect(new Set(urls)).toEqual(new Set(['GET /api/crawl/w-json']));
    expect(fx.sandbox.requests.some((q) => q.url.includes('/pages'))).toBe(false);
  });
  it('--json: a body the server spreads over several lines still becomes one NDJSON line', async () => {
    const pretty = JSON.stringify({ success: true, job: { id: 'w-pretty', status: 'completed', pagesTotal: 1, pagesFinished: 1 }, pages: [] }, null, 2);
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(pretty);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const r = await runCli(['job', 'watch', 'w-pretty', '--json', '--base-url', url], { env: fx.env });
      expect(r.code).toBe(0);
      expect(r.stdout.split('\n')).toHaveLength(2);
      expect(JSON.parse(r.stdout)).toEqual(JSON.parse(pretty));
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
  // --json piped into a reader that leaves after the first line: a real pipe, test/contract/pipes.test.ts.
});

describe('failures', () => {
  it.concurrent('transient failures (503, a dropped connection) warn and the watch goes on', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'w-flaky', status: 'running', pagesTotal: 6, advance: { perPoll: 2 } });
    fx.sandbox.inject({ path: '/api/crawl/w-flaky', kind: 'status', status: 503, skip: 1, times: 1 });
    // Rules count only the requests they get to see: the 503 rule answers the 2nd, the drop rule the 4th.
    fx.sandbox.inject({ path: '/api/crawl/w-flaky', kind: 'drop', skip: 2, times: 1 });
    const r = await runCli(['job', 'watch', 'w-flaky'], { env: fx.env });
    expect(r.code).toBe(0);
    const warnings = r.stderr.split('\n').filter((l) => l.startsWith('crawl: warning: '));
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/HTTP 503.*; retrying in \d/);
    // Five polls (2/6, the 503, 4/6, the drop, 6/6): after a failure the watch's own backoff, never
    // shorter than --interval (its 1 s at most is below the default 2 s).
    expect(r.clock?.sleeps).toEqual([POLL, POLL, POLL, POLL]);
    expect(warnings[0]).toMatch(/; retrying in 2 s$/);
    expect(warnings[1]).toMatch(/closed the connection|reset|socket/);
    expect(r.stdout).toContain('status\tcompleted\n');
  });

  it.concurrent.for([
    [401, 4],
    [403, 4],
    [404, 3],
  ] as const)('%i ends the watch at once with exit %i', async ([status, code], { expect }) => {
    const id = `w-ends-${status}`;
    fx.sandbox.addJob({ id, status: 'running', pagesTotal: 100 });
    fx.sandbox.inject({ path: `/api/crawl/${id}`, kind: 'status', status, skip: 1 });
    const r = await runCli(['job', 'watch', id, ...FAST], { env: fx.env });
    expect(r.code).toBe(code);
    expect(r.stderr).toContain(`HTTP ${status}`);
    expect(r.stdout).toBe('');
    expect(requestsOf(id)).toHaveLength(2);
    // One interval between the two polls, and no backoff after the failure: it ended the watch.
    expect(r.clock?.sleeps).toEqual([500]);
  });

  it.concurrent('a key the service rejects from the start: exit 4 after one request', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'w-badkey', status: 'running', pagesTotal: 100 });
    const r = await runCli(['job', 'watch', 'w-badkey', ...FAST], { env: { ...fx.env, CRAWL_API_KEY: 'crk_' + 'q'.repeat(40) } });
    expect(r.code).toBe(4);
    expect(requestsOf('w-badkey')).toHaveLength(1);
    expect(r.clock?.sleeps).toEqual([]);
  });

  it.concurrent('--max-wait also bounds a poll the service never answers (not just the sleeps between polls)', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'w-hung', status: 'running', pagesTotal: 10, pagesFinished: 3 });
    fx.sandbox.inject({ path: '/api/crawl/w-hung', kind: 'hang', skip: 1 });
    // The first poll is answered, the second (after a 0.5 s interval) hangs: once the service has
    // it, --max-wait's second passes on the fake clock while the 20 s --timeout has not.
    const clock = fakeClock();
    const run = runCli(['job', 'watch', 'w-hung', ...FAST, '--max-wait', '1', '--timeout', '20'], { env: fx.env, clock });
    await waitFor(() => requestsOf('w-hung').length >= 2, 10_000, 'the poll that hangs');
    await clock.advance(500);
    const r = await run;
    expect(r.code).toBe(7);
    // After the first answer ("still running"): the fake clock cannot pass the deadline before it.
    expect(r.stderr).toMatch(/^(\[.*\n)?crawl: gave up waiting: (the job is still running, 3\/10 pages \(30%\)|no answer from the service yet)\n/);
    expect(r.stderr).toContain('the job is still running, 3/10 pages (30%)');
    // It gave up at --max-wait exactly, over the hung poll (not after its --timeout): one pause, then the deadline.
    expect(clock.sleeps).toEqual([500]);
    expect(clock.elapsed()).toBe(1000);
    expect(requestsOf('w-hung')).toHaveLength(2);
  });

  it.concurrent('--max-wait elapsed while pending: exit 7, in bounded time', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'w-stuck', status: 'pending', pagesTotal: 10 });
    const r = await runCli(['job', 'watch', 'w-stuck', ...FAST, '--max-wait', '1.5'], { env: fx.env });
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/crawl: gave up waiting: the job is still pending, 0\/10 pages \(0%\)\nhint: .*--max-wait/);
    // Bounded: polls every 0.5 s for 1.5 s of (virtual) time, then gives up at once.
    expect(r.clock?.sleeps).toEqual(Array(3).fill(500));
    expect(r.clock?.elapsed()).toBe(1500);
  });
});

describe('exit codes', () => {
  it.concurrent.for([
    ['errored', 10],
    ['cancelled_by_user', 11],
    ['cancelled_due_to_timeout', 12],
    ['cancelled_due_to_limits', 13],
    ['completed', 0],
  ] as const)('a job that ends %s exits %i', async ([endStatus, code], { expect }) => {
    const id = `w-end-${endStatus}`;
    fx.sandbox.addJob({ id, status: 'running', pagesTotal: 4, advance: { perPoll: 2, endStatus } });
    const r = await runCli(['job', 'watch', id], { env: fx.env });
    expect(r.code).toBe(code);
    expect(r.stdout).toContain(`status\t${endStatus}\n`);
    expect(r.clock?.sleeps).toEqual([POLL]);
  });

  it.concurrent('a job already finished returns at once, after one request', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'w-done', status: 'cancelled_due_to_limits', pagesTotal: 10, pagesFinished: 5 });
    // The default interval is 2 s: no pause at all shows no second poll was awaited.
    const r = await runCli(['job', 'watch', 'w-done'], { env: fx.env });
    expect(r.code).toBe(13);
    expect(requestsOf('w-done')).toHaveLength(1);
    expect(r.clock?.sleeps).toEqual([]);
    expect(r.stderr).toMatch(/^\[\d+:\d\d\] cancelled_due_to_limits 5\/10 pages \(50%\)\n$/);
  });
});

describe('Ctrl-C', () => {
  it.concurrent('stops watching with exit 130 and never cancels the job', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'w-sigint', status: 'running', pagesTotal: 100, pagesFinished: 1 });
    // In the pause after the first poll, once its progress line is out.
    const controller = new AbortController();
    const r = await crawl(['job', 'watch', 'w-sigint', ...FAST], {
      env: fx.env,
      signal: controller.signal,
      clock: clockWatching(() => interrupt(controller, 'SIGINT')),
    });
    expect(r.stderr).toMatch(/^\[\d+:\d\d\] running 1\/100 pages \(1%\)\n/);
    expect(r.clock.sleeps).toEqual([500]);
    expect(r.code).toBe(130);
    expect(r.stdout).toBe('');
    expect(requestsOf('w-sigint').some((q) => q.method !== 'GET')).toBe(false);
    expect(fx.sandbox.getJob('w-sigint')?.status).toBe('running');
  });

  it.concurrent('SIGTERM stops it the same way, with exit 143', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'w-sigterm', status: 'running', pagesTotal: 100, pagesFinished: 1 });
    // In the pause after the first poll, once its progress line is out.
    const controller = new AbortController();
    const r = await crawl(['job', 'watch', 'w-sigterm', ...FAST], {
      env: fx.env,
      signal: controller.signal,
      clock: clockWatching(() => interrupt(controller, 'SIGTERM')),
    });
    expect(r.stderr).toMatch(/^\[\d+:\d\d\] running 1\/100 pages \(1%\)\n/);
    expect(r.clock.sleeps).toEqual([500]);
    expect(r.code).toBe(143);
    expect(requestsOf('w-sigterm').some((q) => q.method !== 'GET')).toBe(false);
  });

  // On a terminal, ^C typed at the keyboard: a real pty, test/contract/terminal.test.ts.
});

// `job watch`: polling, its three displays, failures that do and do not end it, --max-wait,
// exit codes of terminal statuses, Ctrl-C (exit 130, cursor back, job not cancelled), the live
// line on terminals of every width, and several jobs watched at once.
import { getEventListeners } from 'node:events';
import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fitWatchLine } from '../../../src/commands/job/lib/follow.js';
import { worstOutcome } from '../../../src/commands/job/lib/outcome.js';
import { displayWidth } from '../../../src/io/string-width.js';
import { loadTerminalText } from '../../../src/io/terminal-text.js';
import { sandboxFixture, type SandboxFixture } from '../../support/sandbox.js';
import { clockWatching, fakeClock } from '../../support/fake-clock.js';
import { crawl, interrupt, ndjson, runCli, tempDir, waitFor } from '../../support/harness.js';
import { liveRows, screenOf } from '../../support/screen.js';
import { refusedUrl } from '../../support/hostile-server.js';
import { listenOnLoopback, type OnLoopback } from '../../support/loopback.js';
import { makeTestCertificates } from '../../support/tls-certs.js';
import { needs } from '../../support/tools.js';

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

/** stderr's lines, without the last empty one. */
const stderrOf = (r: { stderr: string }): string[] => r.stderr.trim().split('\n');

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
    expect(out).toContain('\r\u001b[2K');
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
  // --json piped into a reader that leaves after the first line: a real pipe, test/process/pipes.test.ts.
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
    expect(r.stderr).toMatch(/^(\[.*\n)?crawl: gave up waiting: (the job is still running, 3\/10 pages \(30%\)|the job could not be read yet)\n/);
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

describe('a TLS failure ends the watch at once, as the one-shot read reports it', () => {
  // A handshake or a certificate that fails will fail the same way at every poll: the watch does not
  // wait it out (no pause, no warning), and says what `crawl job <id>` says, hint and all.
  const stderrLines = (text: string): string[] => text.trim().split('\n');

  it.concurrent('https:// to the sandbox\'s plain-HTTP port (ERR_SSL_WRONG_VERSION_NUMBER): exit 5, no retry, the one-shot\'s two lines', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'w-tls-port', status: 'running', pagesTotal: 10 });
    const env = { ...fx.env, CRAWL_BASE_URL: fx.sandbox.url.replace('http:', 'https:') };
    const [watch, once] = await Promise.all([crawl(['job', 'watch', 'w-tls-port', '--max-wait', '60'], { env }), crawl(['job', 'w-tls-port'], { env })]);
    expect(once.code).toBe(5);
    expect(watch.code).toBe(5);
    expect(stderrLines(watch.stderr)).toEqual(stderrLines(once.stderr));
    expect(watch.stderr).toMatch(/^crawl: TLS error \(ERR_SSL_WRONG_VERSION_NUMBER\): GET https:\/\/127\.0\.0\.1:\d+\/api\/crawl\/w-tls-port\nhint: the server does not seem to speak TLS on that port/);
    expect(watch.clock.sleeps).toEqual([]);
    expect(watch.stdout).toBe('');
  });

  it.concurrent('several ids: each is reported with the hint, the watch ends without a pause, exit 5', async ({ expect }) => {
    const env = { ...fx.env, CRAWL_BASE_URL: fx.sandbox.url.replace('http:', 'https:') };
    const r = await crawl(['job', 'watch', 'w-tls-a', 'w-tls-b', '--max-wait', '60'], { env });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/^crawl: job w-tls-a: TLS error \(ERR_SSL_WRONG_VERSION_NUMBER\): GET .*\nhint: the server does not seem to speak TLS/m);
    expect(r.stderr).toMatch(/^crawl: job w-tls-b: TLS error \(ERR_SSL_WRONG_VERSION_NUMBER\): GET .*\nhint: the server does not seem to speak TLS/m);
    expect(r.stderr).not.toContain('warning');
    expect(r.clock.sleeps).toEqual([]);
  });

  describe('a certificate crawl does not trust', needs('openssl'), () => {
    let tmp: { dir: string; cleanup: () => void };
    let selfSigned: OnLoopback;
    beforeAll(async () => {
      tmp = tempDir('crawl-watch-tls-');
      const certs = makeTestCertificates(tmp.dir);
      selfSigned = await listenOnLoopback(createHttpsServer(certs.selfSigned, (_req, res) => res.end('{}')));
    });
    afterAll(async () => {
      await selfSigned?.close();
      tmp?.cleanup();
    });

    it('self-signed (DEPTH_ZERO_SELF_SIGNED_CERT): exit 5 at once, with the one-shot\'s message and its fix', async () => {
      const env = { ...fx.env, CRAWL_BASE_URL: `https://127.0.0.1:${selfSigned.port}` };
      const [watch, once] = await Promise.all([crawl(['job', 'watch', 'w-tls-self', '--max-wait', '60'], { env }), crawl(['job', 'w-tls-self'], { env })]);
      expect(watch.code).toBe(5);
      expect(stderrLines(watch.stderr)).toEqual(stderrLines(once.stderr));
      expect(watch.stderr).toMatch(/^crawl: TLS error \(DEPTH_ZERO_SELF_SIGNED_CERT\): the server's certificate is self-signed, and crawl does not trust it: GET .*\nhint: if you trust it /);
      expect(watch.clock.sleeps).toEqual([]);
    });
  });
});

describe('--max-wait when the job was never read: nothing is known of it, so not 7 but the failure\'s code', () => {
  it.concurrent('nothing listens (the tester\'s line): exit 5, naming the last attempt', async ({ expect }) => {
    const url = await refusedUrl();
    const r = await crawl(['job', 'watch', 'demo-small', '--base-url', url, '--max-wait', '3'], { env: fx.env });
    expect(r.code).toBe(5);
    const lines = stderrOf(r);
    expect(lines.at(-2)).toBe(`crawl: gave up waiting: the job could not be read yet (the last attempt: connection refused: GET ${url}/api/crawl/demo-small)`);
    expect(lines.at(-1)).toMatch(/^hint: /);
    expect(lines.slice(0, -2).every((l) => /^crawl: warning: connection refused: .*; retrying in \d/.test(l))).toBe(true);
    expect(r.clock.elapsed()).toBe(3000);
  });

  it.concurrent('--json: the error line says 5', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'w-never-json', status: 'running', pagesTotal: 10 });
    fx.sandbox.inject({ path: '/api/crawl/w-never-json', kind: 'drop' });
    const r = await crawl(['job', 'watch', 'w-never-json', '--max-wait', '3', '--json'], { env: fx.env });
    expect(r.code).toBe(5);
    expect(JSON.parse(stderrOf(r).at(-1) ?? '')).toMatchObject({ error: { exitCode: 5, message: expect.stringMatching(/^gave up waiting: the job could not be read yet \(the last attempt: /) } });
  });

  it.concurrent('read once, then unreachable to the deadline: still exit 7, the last status known', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'w-read-once', status: 'running', pagesTotal: 10, pagesFinished: 4 });
    fx.sandbox.inject({ path: '/api/crawl/w-read-once', kind: 'drop', skip: 1 });
    const r = await crawl(['job', 'watch', 'w-read-once', ...FAST, '--max-wait', '3'], { env: fx.env });
    expect(r.code).toBe(7);
    expect(r.stderr).toContain('crawl: gave up waiting: the job is still running, 4/10 pages (40%)\nhint: raise --max-wait');
  });

  it.concurrent('several ids: the one never read is reported with its own code (5), which outranks the one still running (7)', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'w-many-read', status: 'running', pagesTotal: 10, pagesFinished: 2 });
    fx.sandbox.addJob({ id: 'w-many-never', status: 'running', pagesTotal: 10 });
    fx.sandbox.inject({ path: '/api/crawl/w-many-never', kind: 'drop' });
    const r = await crawl(['job', 'watch', 'w-many-read', 'w-many-never', ...FAST, '--max-wait', '3'], { env: fx.env });
    expect(r.code).toBe(5);
    const lines = stderrOf(r).filter((l) => !l.startsWith('crawl: warning: ') && !l.startsWith('['));
    expect(lines).toEqual([
      expect.stringMatching(/^crawl: job w-many-never: gave up waiting: the job could not be read yet \(the last attempt: .*GET .*\/api\/crawl\/w-many-never\)$/),
      expect.stringMatching(/^hint: /),
      'crawl: gave up waiting after 3 s: 1 of 2 jobs not finished (w-many-read)',
      'hint: raise --max-wait, or watch them again later',
    ]);
    expect(r.stdout).toMatch(/^w-many-read\trunning\t/m);
  });

  it.concurrent('--help of watch, pages and cancel says so beside exit 7', async ({ expect }) => {
    for (const command of ['watch', 'pages', 'cancel']) {
      const help = (await crawl(['job', command, '--help'], { env: fx.env })).stdout.replace(/\s+/g, ' ');
      expect(help).toMatch(/--max-wait <seconds> (with --wait: )?give up after this many seconds \(exit 7; a job never read: the last error's code\)/);
    }
  });

  it.concurrent('several ids, one answered 429 to the end: its error has the HTTP status and hint a single watch gives', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'w-busy-429', status: 'running', pagesTotal: 10 });
    fx.sandbox.addJob({ id: 'w-read-429', status: 'running', pagesTotal: 10, pagesFinished: 2 });
    fx.sandbox.inject({ path: '/api/crawl/w-busy-429', kind: 'status', status: 429 });
    const argv = [...FAST, '--max-wait', '3'];
    const [one, many, json] = await Promise.all([
      crawl(['job', 'watch', 'w-busy-429', ...argv], { env: fx.env }),
      crawl(['job', 'watch', 'w-read-429', 'w-busy-429', ...argv], { env: fx.env }),
      crawl(['job', 'watch', 'w-read-429', 'w-busy-429', ...argv, '--json'], { env: fx.env }),
    ]);
    const said = (r: { stderr: string }): string[] => stderrOf(r).filter((l) => !l.startsWith('crawl: warning: ') && !l.startsWith('['));
    const [message, hint] = said(one);
    expect(one.code).toBe(6);
    expect(hint).toMatch(/^hint: /);
    expect(many.code).toBe(6);
    expect(said(many).slice(0, 2)).toEqual([message?.replace(/^crawl: /, 'crawl: job w-busy-429: '), hint]);
    expect(json.code).toBe(6);
    const errors = stderrOf(json).filter((l) => l.startsWith('{"error"')).map((l) => JSON.parse(l) as { error: { message: string } });
    expect(errors.find((e) => e.error.message.startsWith('job w-busy-429: '))).toEqual({
      error: { message: message?.replace(/^crawl: /, 'job w-busy-429: '), httpStatus: 429, exitCode: 6 },
    });
  });
});

describe('the reader of stdout leaves: the exit says what is known, never "completed"', () => {
  const GONE = { code: 'EPIPE' };

  it.concurrent.for([
    ['errored', 10],
    ['cancelled_by_user', 11],
    ['completed', 0],
  ] as const)('a job that has ended %s, `| true`: exit %i, nothing on stderr', async ([status, code], { expect }) => {
    const id = `w-gone-${status}`;
    fx.sandbox.addJob({ id, status, pagesTotal: 4, pagesFinished: 4 });
    const [plain, json] = await Promise.all([
      crawl(['job', 'watch', id], { env: fx.env, stdoutFails: GONE }),
      crawl(['job', 'watch', id, '--json'], { env: fx.env, stdoutFails: GONE }),
    ]);
    for (const r of [plain, json]) {
      expect(r.code).toBe(code);
      expect(r.stdout).toBe('');
      expect(r.stderr).not.toContain('crawl:');
    }
  });

  it.concurrent('--json into a reader gone after the first line while the job runs: stops at once, exit 1 (not 0: the job has not completed)', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'w-gone-running', status: 'running', pagesTotal: 100, advance: { perPoll: 1 } });
    const r = await crawl(['job', 'watch', 'w-gone-running', '--json', ...FAST], { env: fx.env, stdoutFails: { code: 'EPIPE', afterBytes: 1 } });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('');
    // Stopped at the first failed write: no pause waited after it, no second poll.
    expect(requestsOf('w-gone-running')).toHaveLength(1);
    expect(fx.sandbox.getJob('w-gone-running')?.status).toBe('running');
  });

  it.concurrent('several ids, the reader gone: the worst code once all have ended; 1 while one still runs', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'w-gone-m1', status: 'errored', pagesTotal: 4, pagesFinished: 1 });
    fx.sandbox.addJob({ id: 'w-gone-m2', status: 'completed', pagesTotal: 4, pagesFinished: 4 });
    fx.sandbox.addJob({ id: 'w-gone-m3', status: 'running', pagesTotal: 100, advance: { perPoll: 1 } });
    const [ended, running] = await Promise.all([
      crawl(['job', 'watch', 'w-gone-m1', 'w-gone-m2'], { env: fx.env, stdoutFails: GONE }),
      crawl(['job', 'watch', 'w-gone-m2', 'w-gone-m3', '--json', ...FAST], { env: fx.env, stdoutFails: { code: 'EPIPE', afterBytes: 1 } }),
    ]);
    expect(ended.code).toBe(10);
    expect(running.code).toBe(1);
    expect(ended.stderr + running.stderr).not.toContain('crawl:');
  });

  it.concurrent('--max-wait ends the watch as the reader leaves: the give-up\'s code (7), not 1', async ({ expect }) => {
    // Twins of the same shape: the first run shows how long the first line is; the second's reader
    // leaves in its last line, written by the poll at the deadline, just before the give-up.
    for (const id of ['w-mw-twin1', 'w-mw-twin2']) fx.sandbox.addJob({ id, status: 'running', pagesTotal: 100, advance: { perPoll: 1 } });
    const argv = ['--json', ...FAST, '--max-wait', '0.5'];
    const whole = await crawl(['job', 'watch', 'w-mw-twin1', ...argv], { env: fx.env });
    expect(whole.code).toBe(7);
    const first = whole.stdout.split('\n')[0] ?? '';
    expect(whole.stdout.split('\n')).toHaveLength(3);
    const r = await crawl(['job', 'watch', 'w-mw-twin2', ...argv], { env: fx.env, stdoutFails: { code: 'EPIPE', afterBytes: Buffer.byteLength(first) + 2 } });
    expect(r.stdout.split('\n')).toHaveLength(2);
    expect(r.stderr).toContain('"message":"gave up waiting: the job is still running');
    expect(r.code).toBe(7);
    // Several ids: the code is set before their final rows, which the reader leaves.
    for (const id of ['w-mw-many1', 'w-mw-many2']) fx.sandbox.addJob({ id, status: 'running', pagesTotal: 100, advance: { perPoll: 1 } });
    const many = await crawl(['job', 'watch', 'w-mw-many1', 'w-mw-many2', ...FAST, '--max-wait', '0.5'], { env: fx.env, stdoutFails: { code: 'EPIPE' } });
    expect(many.stderr).toContain('crawl: gave up waiting after 0.5 s: 2 of 2 jobs not finished');
    expect(many.code).toBe(7);
  });

  it.concurrent('a full disk is still a local I/O failure said on stderr (exit 1), whatever the job', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'w-full', status: 'errored', pagesTotal: 4, pagesFinished: 1 });
    const r = await crawl(['job', 'watch', 'w-full'], { env: fx.env, stdoutFails: { code: 'ENOSPC' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('crawl: cannot write to standard output: no space left on device (ENOSPC)');
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

  // On a terminal, ^C typed at the keyboard: a real pty, test/process/terminal.test.ts.
});

describe('the live line', () => {
  // The live line of `job watch` (and of `job pages --wait`) on terminals of many widths, resized
  // while it is drawn, and interrupted: what the screen shows, through a terminal emulator
  // (test/support/screen.ts). In this process, on memory terminals with a fake clock; the same
  // resize through a real pty and SIGWINCH is in test/process/terminal.test.ts.
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

  const DRAW = '\r\u001b[2K';
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
});

describe('several ids', () => {
  // `job watch a b c`: a live line each, and one exit code, the worst
  // (src/commands/job/lib/outcome.ts). In this process, on the sandbox, with a
  // fake clock; the live block is checked on a terminal emulator.
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
      const draws = r.stderr.split('\r\u001b[2K').slice(1).map((d) => d.replace(/\u001b\[\d+A\r$/, '').replace(/\n\u001b\[\?25h$/, ''));
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

  describe('what a watch makes for each job', () => {
    // A watch of many jobs is as heavy as what each poll makes and leaves behind (npm run bench
    // measures the memory of a thousand): here it is counted, for a few ids and for many. What
    // grows with the polls is one signal and one deadline a request, both let go at its end.
    interface Counts {
      requests: number;
      controllers: number;
      composites: number;
      deadlines: number;
      calledOff: number;
      /** Listeners on the run's signal at each pause between rounds. */
      listeners: number[];
    }
    async function watchCounting(count: number): Promise<Counts> {
      const ids = Array.from({ length: count }, (_, i) => job('running', 'completed', 1 + (i % 3)));
      const from = fx.sandbox.requests.length;
      const counts: Counts = { requests: 0, controllers: 0, composites: 0, deadlines: 0, calledOff: 0, listeners: [] };
      const any = vi.spyOn(AbortSignal, 'any');
      vi.stubGlobal(
        'AbortController',
        class extends AbortController {
          constructor() {
            super();
            counts.controllers++;
          }
        },
      );
      // run-cli's signal: the test's interrupt and stdout's failure, joined once a run.
      const runSignal = (): AbortSignal => any.mock.results[0]?.value as AbortSignal;
      const clock = clockWatching(() => counts.listeners.push(getEventListeners(runSignal(), 'abort').length));
      const after = clock.after.bind(clock);
      clock.after = (ms, fire) => {
        counts.deadlines++;
        const callOff = after(ms, fire);
        return () => {
          counts.calledOff++;
          callOff();
        };
      };
      try {
        const r = await crawl(['job', 'watch', ...ids, ...FAST, '--json'], { env: fx.env, clock, signal: new AbortController().signal });
        expect(r.code).toBe(0);
        expect(r.stdout.trim().split('\n')).toHaveLength(fx.sandbox.requests.length - from);
        expect(clock.pendingDeadlines()).toBe(0);
      } finally {
        counts.composites = any.mock.calls.length;
        any.mockRestore();
        vi.unstubAllGlobals();
      }
      counts.requests = fx.sandbox.requests.length - from;
      return counts;
    }

    it('a request makes one signal and one deadline, both let go at its end; nothing else grows with the ids or the polls', async () => {
      const few = await watchCounting(3);
      const many = await watchCounting(20);
      expect(many.requests).toBe(39);
      const more = (pick: (c: Counts) => number): number => (pick(many) - pick(few)) / (many.requests - few.requests);
      // Per request: one controller (the request's signal, its deadline and Ctrl-C in one), no
      // AbortSignal.any, one deadline on the run's clock, called off when the answer is read.
      expect(more((c) => c.controllers)).toBe(1);
      expect(more((c) => c.composites)).toBe(0);
      expect(many.deadlines).toBe(many.requests);
      expect(many.calledOff).toBe(many.deadlines);
      // Between rounds nothing of the polls is left listening on the run's signal.
      expect(Math.max(...many.listeners)).toBe(Math.max(...few.listeners));
      expect(many.listeners).toHaveLength(few.listeners.length);
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
});

describe('the live block of several jobs', () => {
  // `job watch a b c` on a terminal: a block of live lines whose columns line up (ids, statuses,
  // counts), whose finished jobs stop counting time, and which erases only its own rows (nothing
  // for tmux to copy into its scrollback). Through the headless terminal of test/support/screen.ts.
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
});

// `job status`: what it prints for people (TTY), for scripts (plain, --json) and on failure,
// colour switches, unknown statuses and fields, escape sequences from the server, --exit-status,
// several ids at once, and numbers in the locale's grouping.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { displayWidth } from '../../../src/io/string-width.js';
import { sandboxFixture, type SandboxFixture } from '../../support/sandbox.js';
import { crawl, runCli } from '../../support/harness.js';
import { screenOf } from '../../support/screen.js';

let fx: SandboxFixture;
const HOUR = 3_600_000;
const COLOUR = /\u001b\[\d+(;\d+)*m/;
const ANY_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

beforeAll(async () => {
  fx = await sandboxFixture();
  const createdAt = new Date(Date.now() - 3 * HOUR).toISOString();
  fx.sandbox.addJob({ id: 'out-running', url: 'https://docs.example.com/', status: 'running', pagesTotal: 120, pagesFinished: 37, createdAt });
  fx.sandbox.addJob({ id: 'out-pending', status: 'pending', pagesTotal: 10, createdAt });
  fx.sandbox.addJob({
    id: 'out-errored',
    url: 'https://private.example.com/',
    status: 'errored',
    pagesTotal: 80,
    pagesFinished: 17,
    errorMessage: 'Robots.txt disallowed the remaining pages',
    createdAt: '2026-01-02T04:04:05+01:00',
  });
  fx.sandbox.addJob({
    id: 'out-odd',
    status: 'paused_for_lunch',
    pagesTotal: 5,
    pagesFinished: 2,
    createdAt,
    extra: { priority: 'high', retries: 3, region: null, nested: { a: 1 } },
  });
  fx.sandbox.addJob({
    id: 'out-evil',
    url: 'https://evil.example/\u001b]0;pwned\u0007',
    status: 'errored\u001b[2J',
    pagesTotal: 3,
    pagesFinished: 1,
    errorMessage: 'boom\u001b[31m red\u009b1A\u0007 bell\r\nsecond line',
    createdAt,
  });
});
afterAll(() => fx.close());

describe('job status for people (TTY)', () => {
  it('aligned fields, coloured status, progress, relative time and the pages hint', async () => {
    const r = await runCli(['job', 'status', 'out-running'], { env: fx.env, tty: true });
    expect(r.code).toBe(0);
    const text = r.stdout.replace(/\u001b\[\d+m/g, '');
    expect(text).toMatch(/^Job\s+out-running\n/);
    expect(text).toMatch(/\nURL\s+https:\/\/docs\.example\.com\/\n/);
    expect(text).toMatch(/\nStatus\s+running\n/);
    expect(text).toMatch(/\nProgress\s+37\/120 pages \(31%\)\n/);
    expect(text).toMatch(/\nCreated\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z \(3 hours ago\)\n/);
    // A running job's pages are exported once it finishes: the hint says --wait.
    expect(text).toContain('crawl job pages out-running --wait');
    expect(r.stdout).toContain('\u001b[36mrunning\u001b[39m');
  });

  it('an errored job shows its errorMessage in red; no pages, no pages hint', async () => {
    const [errored, pending] = await Promise.all([
      runCli(['job', 'out-errored'], { env: fx.env, tty: true }),
      runCli(['job', 'out-pending'], { env: fx.env, tty: true }),
    ]);
    expect(errored.code).toBe(0);
    expect(errored.stdout).toMatch(/\nError\s+\u001b\[31mRobots\.txt disallowed the remaining pages\u001b\[39m\n/);
    expect(errored.stdout).toContain('\u001b[31merrored\u001b[39m');
    expect(pending.code).toBe(0);
    expect(pending.stdout).toMatch(/Progress\s+0\/10 pages \(0%\)/);
    expect(pending.stdout).not.toContain('crawl job pages');
    expect(pending.stdout).not.toMatch(/\nError\s/);
  });
});

describe('job status for scripts', () => {
  it('plain: field<TAB>value rows, no header, no colour, full values, RFC 3339 UTC times', async () => {
    const r = await runCli(['job', 'out-errored'], { env: { ...fx.env, FORCE_COLOR: undefined } });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        'id\tout-errored',
        'url\thttps://private.example.com/',
        'status\terrored',
        'pagesTotal\t80',
        'pagesFinished\t17',
        'creditsUsed\t17',
        'createdAt\t2026-01-02T03:04:05Z',
        'errorMessage\tRobots.txt disallowed the remaining pages',
        '',
      ].join('\n'),
    );
    expect(r.stderr).toBe('');
  });

  it('--json: the body exactly as received, whitespace, order and unknown fields included', async () => {
    const body = '{ "success" : true,\n  "job": {"status":"completed","id":"raw-1","pagesTotal":1.0,"x-future":{"deep":[1,"\\u00e9"]}},\n  "pages": [], "meta": null }';
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const r = await runCli(['job', 'raw-1', '--json', '--base-url', url], { env: fx.env });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(body + '\n');
      expect(r.stderr).toBe('');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('--json errors: one JSON line on stderr, nothing on stdout', async () => {
    const [notFound, usage] = await Promise.all([
      runCli(['job', 'nope', '--json'], { env: fx.env }),
      runCli(['--json', 'job', 'nope'], { env: { ...fx.env, CRAWL_BASE_URL: undefined } }),
    ]);
    expect(notFound.code).toBe(3);
    expect(notFound.stdout).toBe('');
    expect(notFound.stderr.split('\n')).toEqual([expect.any(String), '']);
    expect(JSON.parse(notFound.stderr)).toEqual({
      error: { message: 'GET /api/crawl/nope failed: HTTP 404: Job not found: nope', httpStatus: 404, exitCode: 3 },
    });
    expect(usage.code).toBe(2);
    expect(usage.stdout).toBe('');
    expect(JSON.parse(usage.stderr)).toEqual({ error: { message: 'no base URL configured', httpStatus: null, exitCode: 2 } });
  });
});

describe('a reader that goes away', () => {
  it('stdout closed before the job is printed (EPIPE): exit 0, no stack trace', async () => {
    // The reader is gone before the first byte: the first write fails with EPIPE.
    const r = await crawl(['job', 'out-errored'], { env: fx.env, stdoutFails: { code: 'EPIPE' } });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('');
  });

  it('--exit-status, `| true`: the status was read, so the exit is the job\'s (10 errored), never 0; nothing on stderr', async () => {
    const runs = await Promise.all([
      crawl(['job', 'out-errored', '--exit-status'], { env: fx.env, stdoutFails: { code: 'EPIPE' } }),
      crawl(['job', 'status', 'out-errored', '--exit-status', '--json'], { env: fx.env, stdoutFails: { code: 'EPIPE' } }),
      crawl(['job', 'status', 'out-errored', 'out-running', '--exit-status'], { env: fx.env, stdoutFails: { code: 'EPIPE' } }),
      crawl(['job', 'status', 'out-running', '--exit-status'], { env: fx.env, stdoutFails: { code: 'EPIPE' } }),
    ]);
    expect(runs.map((r) => r.code)).toEqual([10, 10, 10, 7]);
    for (const r of runs) expect(r.stderr).toBe('');
  });
});

describe('colour switches', () => {
  it('colour on a terminal; off with NO_COLOR, --no-color, FORCE_COLOR=0 or TERM=dumb; FORCE_COLOR beats TERM=dumb', async () => {
    const run = (env: Record<string, string | undefined>, extra: string[] = []) =>
      runCli(['job', 'out-running', ...extra], { env: { ...fx.env, ...env }, tty: true });
    const [plainTty, noColor, flag, force0, dumb, forcedDumb] = await Promise.all([
      run({}),
      run({ NO_COLOR: '1' }),
      run({}, ['--no-color']),
      run({ FORCE_COLOR: '0' }),
      run({ TERM: 'dumb' }),
      run({ TERM: 'dumb', FORCE_COLOR: '1' }),
    ]);
    for (const r of [plainTty, noColor, flag, force0, dumb, forcedDumb]) expect(r.code).toBe(0);
    expect(plainTty.stdout).toMatch(COLOUR);
    expect(forcedDumb.stdout).toMatch(COLOUR);
    for (const r of [noColor, flag, force0, dumb]) {
      expect(r.stdout).not.toMatch(COLOUR);
      expect(r.stdout).toMatch(/Status\s+running\n/);
    }
  });

  it('plain output stays free of colour even with FORCE_COLOR (it is for cut and awk)', async () => {
    const r = await runCli(['job', 'out-running'], { env: { ...fx.env, FORCE_COLOR: '1' } });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(COLOUR);
    expect(r.stdout).toContain('status\trunning\n');
  });
});

describe('what the interface does not document', () => {
  it('unknown statuses are shown as they are, unknown scalar fields are passed through', async () => {
    const [plain, tty, json] = await Promise.all([
      runCli(['job', 'out-odd'], { env: fx.env }),
      runCli(['job', 'out-odd'], { env: fx.env, tty: true }),
      runCli(['job', 'out-odd', '--json'], { env: fx.env }),
    ]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain('status\tpaused_for_lunch\n');
    expect(plain.stdout).toContain('priority\thigh\nretries\t3\nregion\t\n');
    expect(tty.code).toBe(0);
    expect(tty.stdout).toMatch(/Status\s+paused_for_lunch\n/);
    expect(tty.stdout).toMatch(/priority\s+high\n/);
    expect(JSON.parse(json.stdout).job).toMatchObject({ status: 'paused_for_lunch', priority: 'high', retries: 3, region: null, nested: { a: 1 } });
  });
});

describe('escape sequences from the server', () => {
  it('are removed in TTY and plain output, and escaped (not raw) in --json', async () => {
    const [tty, plain, json] = await Promise.all([
      runCli(['job', 'out-evil'], { env: fx.env, tty: true }),
      runCli(['job', 'out-evil'], { env: fx.env }),
      runCli(['job', 'out-evil', '--json'], { env: fx.env }),
    ]);
    for (const r of [tty, plain, json]) expect(r.code).toBe(0);
    // On the terminal only our own SGR colour codes may remain.
    const ttyWithoutOurColours = tty.stdout.replace(/\u001b\[\d+m/g, '').replace(/\n/g, '');
    expect(ttyWithoutOurColours).not.toMatch(ANY_CONTROL);
    expect(tty.stdout).not.toContain('\u001b]0;');
    expect(tty.stdout).not.toContain('\u001b[2J');
    expect(tty.stdout).toMatch(/Error\s+\S*boom\[31m red1A bellsecond line/);

    expect(plain.stdout.replace(/[\t\n]/g, '')).not.toMatch(ANY_CONTROL);
    expect(plain.stdout).toContain('url\thttps://evil.example/]0;pwned\n');
    expect(plain.stdout).toContain('status\terrored[2J\n');
    expect(plain.stdout).toContain('errorMessage\tboom[31m red1A bellsecond line\n');

    // JSON escapes C0 controls (ESC, BEL, CR, LF); it has no escape duty for C1, which passes as received.
    expect(json.stdout.trimEnd()).not.toMatch(/[\u0000-\u001f]/);
    expect(json.stdout).toContain('\\u001b]0;pwned\\u0007');
    expect(JSON.parse(json.stdout).job.errorMessage).toBe('boom\u001b[31m red\u009b1A\u0007 bell\r\nsecond line');
  });
});

describe('--exit-status', () => {
  // `job status --exit-status`: the job's own exit code; without it, 0 whenever the status was read.
  let fx: SandboxFixture;
  beforeAll(async () => {
    fx = await sandboxFixture();
    fx.sandbox.addJob({ id: 'st-running', status: 'running', pagesTotal: 10, pagesFinished: 4 });
    fx.sandbox.addJob({ id: 'st-unknown', status: 'queued_somewhere', pagesTotal: 10 });
  });
  afterAll(() => fx.close());

  const CASES: ReadonlyArray<readonly [id: string, status: string, code: number]> = [
    ['demo-small', 'completed', 0],
    ['demo-errored', 'errored', 10],
    ['demo-cancelled', 'cancelled_by_user', 11],
    ['demo-timeout', 'cancelled_due_to_timeout', 12],
    ['demo-limits', 'cancelled_due_to_limits', 13],
    ['demo-pending', 'pending', 7],
    ['st-running', 'running', 7],
    // Not terminal as far as we know: treated like running.
    ['st-unknown', 'queued_somewhere', 7],
  ];

  describe('job status --exit-status', () => {
    it.concurrent.for(CASES)('%s (%s) exits %i', async ([id, status, code], { expect }) => {
      const r = await runCli(['job', 'status', id, '--exit-status'], { env: fx.env });
      expect(r.code).toBe(code);
      expect(r.stdout).toContain(`status\t${status}\n`);
      expect(r.stderr).toBe('');
    });

    it('without --exit-status a failed crawl is still a successful read (0)', async () => {
      const results = await Promise.all(['demo-errored', 'demo-limits', 'st-running'].map((id) => runCli(['job', 'status', id], { env: fx.env })));
      for (const r of results) expect(r.code).toBe(0);
    });

    it('--exit-status works with --json, which still prints only the body', async () => {
      const r = await runCli(['job', 'demo-timeout', '--json', '--exit-status'], { env: fx.env });
      expect(r.code).toBe(12);
      expect(JSON.parse(r.stdout)).toMatchObject({ success: true, job: { id: 'demo-timeout', status: 'cancelled_due_to_timeout' } });
    });

    it('`crawl job <id>` is `crawl job status <id>`', async () => {
      const [short, long] = await Promise.all([
        runCli(['job', 'demo-errored'], { env: fx.env }),
        runCli(['job', 'status', 'demo-errored'], { env: fx.env }),
      ]);
      expect(short.code).toBe(0);
      expect(short.stdout).toBe(long.stdout);
      expect(short.stdout).toContain('id\tdemo-errored\n');
    });
  });
});

describe('several ids', () => {
  // `job status a b c`: a row each, and one exit code, the worst (src/commands/job/lib/outcome.ts).
  let fx: SandboxFixture;
  beforeAll(async () => {
    fx = await sandboxFixture({ seed: false });
  });
  afterAll(() => fx.close());

  let n = 0;
  /** A job of its own for each test, in `status`. */
  function job(status: string): string {
    const id = `many-${++n}-${status}`;
    fx.sandbox.addJob({ id, status, pagesTotal: 10, pagesFinished: status === 'completed' ? 10 : 3 });
    return id;
  }

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
});

describe('the hint on a narrow terminal', () => {
  // The hint under a job view ("Export the pages with: crawl job pages <id>") on a narrow terminal:
  // fitted to the width like the fields above it, broken between words, never inside one, and the
  // command still pasteable (continued with ` \`).
  let fx: SandboxFixture;
  beforeAll(async () => {
    fx = await sandboxFixture({ seed: false });
    fx.sandbox.addJob({ id: 'a-job-with-a-rather-long-identifier', status: 'completed', pagesTotal: 3 });
    fx.sandbox.addJob({ id: 'job-0123456789', status: 'completed', pagesTotal: 3 });
    fx.sandbox.addJob({ id: 'still-going-job', status: 'running', pagesTotal: 10, pagesFinished: 2 });
  });
  afterAll(() => fx.close());

  /** The hint's rows on the screen: those after the last blank row. */
  function hintRows(rows: string[]): string[] {
    return rows.slice(rows.lastIndexOf('') + 1);
  }

  /** The rows joined as a shell would read them: ` \` continues a line. */
  function pasted(rows: string[]): string {
    return rows.map((row) => row.trim()).join(' ').replace(/ \\ /g, ' ');
  }

  describe('the hint under job status', () => {
    it.each([24, 30, 40])('%i columns: every row within the width, no word cut, the command whole', async (columns) => {
      const id = 'job-0123456789';
      const r = await crawl(['job', 'status', id, '--no-color'], { env: fx.env, tty: true, columns });
      expect(r.code).toBe(0);
      const screen = await screenOf(r.output, columns);
      const rows = hintRows(screen.rows);
      for (const row of rows) expect(displayWidth(row), row).toBeLessThanOrEqual(columns);
      // The terminal wrapped nothing: each row is what crawl wrote, a whole line.
      expect(r.stdout).toContain(rows.join('\n'));
      expect(pasted(rows)).toBe(`Export the pages with: crawl job pages ${id}`);
    });

    it('an id wider than the terminal: on a line of its own, whole (the terminal wraps it, nothing cuts it)', async () => {
      const id = 'a-job-with-a-rather-long-identifier';
      const r = await crawl(['job', 'status', id, '--no-color'], { env: fx.env, tty: true, columns: 30 });
      expect(r.stdout.trimEnd().split('\n').slice(-3)).toEqual(['Export the pages with:', '    crawl job pages \\', `      ${id}`]);
    });

    it('wide enough: one line, as before', async () => {
      const r = await crawl(['job', 'status', 'a-job-with-a-rather-long-identifier'], { env: fx.env, tty: true, columns: 100 });
      expect(hintRows((await screenOf(r.output, 100)).rows)).toEqual(['Export the pages with: crawl job pages a-job-with-a-rather-long-identifier']);
    });

    it('a job still going: the --wait form, fitted the same way', async () => {
      const r = await crawl(['job', 'status', 'still-going-job'], { env: fx.env, tty: true, columns: 30 });
      const rows = hintRows((await screenOf(r.output, 30)).rows);
      for (const row of rows) expect(displayWidth(row), row).toBeLessThanOrEqual(30);
      expect(pasted(rows)).toBe('Export the pages once it finishes with: crawl job pages still-going-job --wait');
    });
  });

  describe('the note under job cancel', () => {
    it('a job still running after the cancel, on a narrow terminal: fitted, the command whole', async () => {
      fx.sandbox.addJob({ id: 'lagging-job', status: 'running', pagesTotal: 100, pagesFinished: 5, cancel: { lagPolls: 3 } });
      const r = await crawl(['job', 'cancel', 'lagging-job'], { env: fx.env, tty: true, columns: 40 });
      expect(r.code).toBe(0);
      const lines = r.stderr.trimEnd().split('\n');
      for (const line of lines) expect(displayWidth(line), line).toBeLessThanOrEqual(40);
      expect(pasted(lines)).toBe('Cancellation requested; the job is still running. Follow it with: crawl job watch lagging-job');
    });
  });
});

describe('numbers for people use the locale grouping on a terminal; plain and JSON keep the digits', () => {
  beforeAll(() => {
    fx.sandbox.addJob({ id: 'big', status: 'completed', pagesTotal: 1_000_000, creditsUsed: 1_234_567 });
  });

  it.each([
    ['en_US.UTF-8', '1,000,000/1,000,000 pages (100%)', '1,234,567'],
    ['de_DE.UTF-8', '1.000.000/1.000.000 pages (100%)', '1.234.567'],
    ['C', '1,000,000/1,000,000 pages (100%)', '1,234,567'],
  ])('LANG=%s', async (lang, progress, credits) => {
    const r = await crawl(['job', 'big'], { env: { ...fx.env, LANG: lang, NO_COLOR: '1' }, tty: true });
    expect(r.stdout).toMatch(new RegExp(`^Progress +${progress.replace(/[.()]/g, '\\$&')}$`, 'm'));
    expect(r.stdout).toMatch(new RegExp(`^Credits +${credits.replace(/\./g, '\\.')}$`, 'm'));
  });

  it('LC_ALL wins over LANG; plain rows and --json keep the raw numbers', async () => {
    const [all, plain, json] = await Promise.all([
      crawl(['job', 'big'], { env: { ...fx.env, LANG: 'en_US.UTF-8', LC_ALL: 'de_DE.UTF-8', NO_COLOR: '1' }, tty: true }),
      crawl(['job', 'big'], { env: { ...fx.env, LANG: 'en_US.UTF-8' } }),
      crawl(['job', 'big', '--json'], { env: { ...fx.env, LANG: 'en_US.UTF-8' }, tty: true }),
    ]);
    expect(all.stdout).toContain('1.000.000/1.000.000');
    expect(plain.stdout).toContain('pagesTotal\t1000000\n');
    expect(plain.stdout).toContain('creditsUsed\t1234567\n');
    expect(JSON.parse(json.stdout).job).toMatchObject({ pagesTotal: 1000000, creditsUsed: 1234567 });
  });
});

// `job cancel`: DELETE once (never retried), the resulting status from the DELETE's body or one
// GET, --wait until the job is terminal (a service may keep crawling a while after accepting),
// --json, and the exit codes of refusals (409 -> 1, 404 -> 3, 401 -> 4).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxFixture, type SandboxFixture } from '../../support/sandbox.js';
import { crawl, ndjson, runCli } from '../../support/harness.js';

let fx: SandboxFixture;
beforeAll(async () => {
  fx = await sandboxFixture();
});
afterAll(() => fx.close());

const FAST = ['--interval', '0.5'];

function requestsOf(id: string, method?: string) {
  return fx.sandbox.requests.filter((r) => r.url === `/api/crawl/${id}` && (method === undefined || r.method === method));
}

describe('without --wait', () => {
  it.concurrent('a running job: cancelled, its status shown, exit 0', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'c-running', status: 'running', pagesTotal: 100, pagesFinished: 40 });
    const r = await runCli(['job', 'cancel', 'c-running'], { env: fx.env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('id\tc-running\n');
    expect(r.stdout).toContain('status\tcancelled_by_user\n');
    expect(fx.sandbox.getJob('c-running')?.status).toBe('cancelled_by_user');
    // The DELETE's body held the job: no GET needed.
    expect(requestsOf('c-running', 'DELETE')).toHaveLength(1);
    expect(requestsOf('c-running', 'GET')).toHaveLength(0);
  });

  it.concurrent('a pending job, shown to a person on a terminal', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'c-pending', status: 'pending', pagesTotal: 10 });
    const r = await runCli(['job', 'cancel', 'c-pending'], { env: fx.env, tty: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Status\s+\S*cancelled_by_user/);
  });

  it.concurrent('a service that accepts and keeps crawling: the status it reports, and how to follow it', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'c-lag', status: 'running', pagesTotal: 100, pagesFinished: 5, cancel: { lagPolls: 3 } });
    const r = await runCli(['job', 'cancel', 'c-lag'], { env: fx.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('status\trunning\n');
    expect(r.stderr).toBe('Cancellation requested; the job is still running. Follow it with `crawl job watch c-lag`.\n');
  });

  it.concurrent('a DELETE answered with a message, not the job: one GET shows the status', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'c-message', status: 'running', pagesTotal: 10, cancel: { response: 'message' } });
    const r = await runCli(['job', 'cancel', 'c-message'], { env: fx.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('status\tcancelled_by_user\n');
    expect(requestsOf('c-message', 'GET')).toHaveLength(1);
  });

  it.concurrent('--json: the DELETE\'s body as received', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'c-json', status: 'running', pagesTotal: 10 });
    const r = await runCli(['job', 'cancel', 'c-json', '--json'], { env: fx.env });
    expect(r.code).toBe(0);
    const body = JSON.parse(r.stdout) as { success: boolean; job: { id: string; status: string } };
    expect(body.success).toBe(true);
    expect(body.job).toMatchObject({ id: 'c-json', status: 'cancelled_by_user' });
    fx.sandbox.addJob({ id: 'c-json-msg', status: 'running', pagesTotal: 10, cancel: { response: 'message' } });
    const message = await runCli(['job', 'cancel', 'c-json-msg', '--json'], { env: fx.env });
    expect(message.code).toBe(0);
    expect(JSON.parse(message.stdout)).toEqual({ success: true, message: 'Cancellation requested' });
    // The DELETE's answer is what --json shows: the job is not fetched for nothing.
    expect(requestsOf('c-json-msg', 'GET')).toHaveLength(0);
  });
});

describe('refusals', () => {
  it.concurrent('a finished job (409): exit 1 with the service\'s message', async ({ expect }) => {
    const r = await runCli(['job', 'cancel', 'demo-small'], { env: fx.env });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'crawl: cannot cancel job demo-small: HTTP 409: Job demo-small is already completed and cannot be cancelled\n' +
        'hint: see where it stands with `crawl job status demo-small`\n',
    );
  });

  it.concurrent('no such job: 3; a bad key: 4; --json error line', async ({ expect }) => {
    const missing = await runCli(['job', 'cancel', 'c-nope'], { env: fx.env });
    expect(missing.code).toBe(3);
    expect(missing.stderr).toBe('crawl: cannot cancel job c-nope: HTTP 404: Job not found: c-nope\n');
    const badKey = await runCli(['job', 'cancel', 'demo-running', '--json'], {
      env: { ...fx.env, CRAWL_API_KEY: 'crk_not_a_valid_key_at_all_0000000000' },
    });
    expect(badKey.code).toBe(4);
    expect(JSON.parse(badKey.stderr)).toMatchObject({ error: { httpStatus: 401, exitCode: 4 } });
    expect(fx.sandbox.getJob('demo-running')?.status).not.toBe('cancelled_by_user');
  });

  it('a 503 on the DELETE is not retried: exit 1, one DELETE sent', async () => {
    fx.sandbox.addJob({ id: 'c-503', status: 'running', pagesTotal: 10 });
    fx.sandbox.inject({ method: 'DELETE', path: '/api/crawl/c-503', kind: 'status', status: 503 });
    const r = await runCli(['job', 'cancel', 'c-503'], { env: fx.env });
    fx.sandbox.clearFaults();
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^crawl: cannot cancel job c-503: HTTP 503: Injected fault\n/);
    expect(requestsOf('c-503', 'DELETE')).toHaveLength(1);
    expect(fx.sandbox.getJob('c-503')?.status).toBe('running');
  });

  it('a connection lost after sending: exit 5, and the message says the cancel may have happened', async () => {
    fx.sandbox.addJob({ id: 'c-drop', status: 'running', pagesTotal: 10 });
    fx.sandbox.inject({ method: 'DELETE', path: '/api/crawl/c-drop', kind: 'drop' });
    const r = await runCli(['job', 'cancel', 'c-drop'], { env: fx.env });
    fx.sandbox.clearFaults();
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/\nhint: the cancellation may have reached the service: check with `crawl job status c-drop`\n$/);
    expect(requestsOf('c-drop', 'DELETE')).toHaveLength(1);
  });
});

describe('--wait', () => {
  it.concurrent('polls until the job is cancelled (progress on stderr), then shows it; exit 0', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'w-lag', status: 'running', pagesTotal: 100, pagesFinished: 5, cancel: { lagPolls: 3 } });
    const r = await runCli(['job', 'cancel', 'w-lag', '--wait', ...FAST], { env: fx.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('status\tcancelled_by_user\n');
    expect(r.stderr.replace(/^\[\d+:\d\d\] /gm, '')).toBe('running 5/100 pages (5%)\ncancelled_by_user 5/100 pages (5%)\n');
    expect(requestsOf('w-lag', 'GET').length).toBeGreaterThanOrEqual(4);
    // Three polls still saw it running: the --interval between each and the next, on the fake clock.
    expect(r.clock?.sleeps).toEqual([500, 500, 500]);
  });

  it.concurrent('--json: NDJSON, the DELETE\'s body then each changed job body, the last one terminal', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'w-json', status: 'running', pagesTotal: 100, pagesFinished: 5, cancel: { lagPolls: 2 } });
    const r = await runCli(['job', 'cancel', 'w-json', '--wait', '--json', ...FAST], { env: fx.env });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const lines = ndjson(r.stdout) as Array<{ job: { status: string } }>;
    expect(lines.map((l) => l.job.status)).toEqual(['running', 'running', 'cancelled_by_user']);
    expect(r.clock?.sleeps).toEqual([500, 500]);
  });

  it.concurrent('a job already cancelled by the DELETE: one poll, exit 0', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'w-now', status: 'pending', pagesTotal: 10 });
    const r = await runCli(['job', 'cancel', 'w-now', '--wait', ...FAST], { env: fx.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('status\tcancelled_by_user\n');
    expect(requestsOf('w-now', 'GET')).toHaveLength(1);
    expect(r.clock?.sleeps).toEqual([]);
  });

  it.concurrent('the job ends otherwise before the cancel takes effect: that status\'s exit code; with --json, one JSON error line', async ({ expect }) => {
    for (const id of ['w-other', 'w-other-json']) {
      fx.sandbox.addJob({ id, status: 'running', pagesTotal: 10, cancel: { lagPolls: 50 } });
      const body = JSON.stringify({ success: true, job: { id, status: 'errored', pagesTotal: 10, pagesFinished: 3 } });
      fx.sandbox.inject({ method: 'GET', path: `/api/crawl/${id}`, kind: 'status', status: 200, body });
    }
    const plain = await runCli(['job', 'cancel', 'w-other', '--wait', ...FAST], { env: fx.env });
    expect(plain.code).toBe(10);
    expect(plain.stdout).toContain('status\terrored\n');
    expect(plain.stderr.endsWith('crawl: the job ended errored before the cancellation took effect\n')).toBe(true);
    const json = await runCli(['job', 'cancel', 'w-other-json', '--wait', '--json', ...FAST], { env: fx.env });
    expect(json.code).toBe(10);
    expect((ndjson(json.stdout) as Array<{ job: { status: string } }>).map((l) => l.job.status)).toEqual(['running', 'errored']);
    expect(ndjson(json.stderr)).toEqual([
      { error: { message: 'the job ended errored before the cancellation took effect', httpStatus: null, exitCode: 10 } },
    ]);
  });

  it.concurrent('--max-wait elapsed while the job still runs: exit 7', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'w-slow', status: 'running', pagesTotal: 100, cancel: { lagPolls: 1000 } });
    const r = await runCli(['job', 'cancel', 'w-slow', '--wait', ...FAST, '--max-wait', '3'], { env: fx.env });
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/crawl: gave up waiting: the job is still running/);
    // Polled every 0.5 s until 3 s of (virtual) time had passed, then gave up.
    expect(r.clock?.sleeps).toEqual(Array(6).fill(500));
    expect(r.clock?.elapsed()).toBe(3000);
  });

  it.concurrent('a finished job with --wait is still a refusal (409): exit 1, no polling', async ({ expect }) => {
    const r = await runCli(['job', 'cancel', 'demo-errored', '--wait', ...FAST], { env: fx.env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^crawl: cannot cancel job demo-errored: HTTP 409/);
    // One GET, to tell a job the user already cancelled (exit 0) from one that ended otherwise.
    expect(requestsOf('demo-errored', 'GET')).toHaveLength(1);
  });
});

describe('a job that has ended', () => {
  // `job cancel` of a job that has ended: the service answers 409 for all of them. Already cancelled
  // by the user is what was asked for (exit 0, a note); completed, errored, or cancelled by the
  // service stays a failure that names the status.
  let fx: SandboxFixture;
  beforeAll(async () => {
    fx = await sandboxFixture({ seed: false });
  });
  afterAll(async () => {
    await fx.close();
  });

  const deletes = (id: string) => fx.sandbox.requests.filter((r) => r.url === `/api/crawl/${id}` && r.method === 'DELETE');

  describe('a job already cancelled by the user', () => {
    it('exit 0, the job shown, a note on stderr', async () => {
      fx.sandbox.addJob({ id: 'gone-1', status: 'cancelled_by_user', pagesTotal: 10, pagesFinished: 4 });
      const r = await crawl(['job', 'cancel', 'gone-1'], { env: fx.env });
      expect(r.code).toBe(0);
      expect(deletes('gone-1')).toHaveLength(1);
      expect(r.stdout).toContain('status\tcancelled_by_user\n');
      expect(r.stderr).toBe('Job gone-1 was already cancelled: nothing to do.\n');
    });

    it('twice in a row: the second answers as the first', async () => {
      fx.sandbox.addJob({ id: 'gone-2', status: 'running', pagesTotal: 10, pagesFinished: 1 });
      const first = await crawl(['job', 'cancel', 'gone-2'], { env: fx.env });
      expect(first.code).toBe(0);
      const second = await crawl(['job', 'cancel', 'gone-2'], { env: fx.env });
      expect(second.code).toBe(0);
      expect(second.stderr).toContain('already cancelled');
    });

    it('--json: the job document alone, exit 0; --wait --json: one line', async () => {
      fx.sandbox.addJob({ id: 'gone-3', status: 'cancelled_by_user', pagesTotal: 10 });
      const r = await crawl(['job', 'cancel', 'gone-3', '--json'], { env: fx.env });
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      expect(JSON.parse(r.stdout)).toMatchObject({ job: { id: 'gone-3', status: 'cancelled_by_user' } });
      const waited = await crawl(['job', 'cancel', 'gone-3', '--wait', '--json'], { env: fx.env });
      expect(waited.code).toBe(0);
      expect(waited.stdout.trimEnd().split('\n')).toHaveLength(1);
      expect(waited.clock.sleeps).toEqual([]);
    });
  });

  describe('a job that ended otherwise keeps a non-zero code', () => {
    it.each([
      ['completed', 1],
      ['errored', 1],
      ['cancelled_due_to_timeout', 1],
      ['cancelled_due_to_limits', 1],
    ] as const)('%s: exit %i, the status named', async (status, code) => {
      const id = `ended-${status}`;
      fx.sandbox.addJob({ id, status, pagesTotal: 5 });
      const r = await crawl(['job', 'cancel', id], { env: fx.env });
      expect(r.code).toBe(code);
      expect(r.stdout).toBe('');
      expect(r.stderr.split('\n')[0]).toMatch(new RegExp(`^crawl: cannot cancel job ${id}: HTTP 409.*${status}`));
    });
  });

  describe('crawl help exit-codes', () => {
    it('states the rule beside the table', async () => {
      const r = await crawl(['help', 'exit-codes'], { columns: 200 });
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/`job cancel` of a job already cancelled by the user exits 0/);
    });
  });
});

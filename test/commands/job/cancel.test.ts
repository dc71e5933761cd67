// `job cancel` of a job that has ended: the service answers 409 for all of them. Already cancelled
// by the user is what was asked for (exit 0, a note); completed, errored, or cancelled by the
// service stays a failure that names the status.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxFixture, type SandboxFixture } from '../../helpers/sandbox.js';
import { crawl } from '../../support/harness.js';

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

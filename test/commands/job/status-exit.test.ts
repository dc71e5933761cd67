// `job status --exit-status`: the job's own exit code; without it, 0 whenever the status was read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../support/cli.js';
import { sandboxFixture, type SandboxFixture } from '../../support/sandbox.js';

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

// Rate limits and rejected keys (whose error body echoes the Authorization header) for every
// command not in test/http/error-statuses.test.ts, in --json mode; and a watch, which ends at once on a
// 404 but sits out a 503 until --max-wait. The rows: test/support/status-rows.ts.
import { afterAll, beforeAll, describe, it, vi } from 'vitest';
import { command } from '../support/battery.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';
import { ROWS, runStatusCase } from '../support/status-rows.js';

vi.setConfig({ maxConcurrency: 10 });

let fx: SandboxFixture;
beforeAll(async () => {
  fx = await sandboxFixture();
});
afterAll(() => fx.close());

describe.concurrent('rate limits and rejected keys, every other command, --json', () => {
  const picked = ROWS.filter((r) => r.name.startsWith('429, Retry-After as a date') || r.status === 401);
  const names = ['job watch', 'job pages', 'keys list', 'keys revoke', 'keys rotate', 'auth login', 'auth status'];
  const cases = names.flatMap((name) => picked.map((row) => [name, row.name, row] as const));
  it.for(cases)('%s: %s', async ([name, , row], { expect }) => {
    await runStatusCase(fx.sandbox, command(name), row, true, expect);
  });
});

describe.concurrent('a watch ends at once on 404 and sits out a 503', () => {
  const picked = ROWS.filter((r) => r.status === 404 || r.status === 503);
  it.for(picked.map((row) => [row.name, row] as const))('job watch: %s', async ([, row], { expect }) => {
    await runStatusCase(fx.sandbox, command('job watch'), row, false, expect);
  });
});

// Every error status, for a GET, a POST and a DELETE command: the HTTP layer maps statuses to exit
// codes once, so three methods cover the mapping; what differs is retrying (GETs only) and each
// command's wording. The rows and what each must show: test/support/status-rows.ts. The other commands
// meet the statuses that matter most to them in test/http/error-statuses-commands.test.ts.
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

describe.concurrent('every status and error body, for a GET, a POST and a DELETE', () => {
  // Every other case in --json, so both ways of reporting an error meet every command here.
  const cases = ['job status', 'keys create', 'job cancel'].flatMap((name, n) =>
    ROWS.map((row, i) => [name, row.name, (n + i) % 2 === 1 ? ' --json' : '', row] as const),
  );
  it.for(cases)('%s: %s%s', async ([name, , json, row], { expect }) => {
    await runStatusCase(fx.sandbox, command(name), row, json !== '', expect);
  });
});

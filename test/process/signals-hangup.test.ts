// A real crawl process (the built CLI) given SIGHUP, what a closed terminal sends it (and a closed
// console window on Windows): it ends as on SIGTERM (143), through the command's own interrupt,
// with the file it was writing holding whole records. Ctrl-Break (SIGBREAK) exists on Windows
// only: src/main.ts wires it from platform.ts's list (test/platform/platform.test.ts).
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { runCli, tempDir, waitFor } from '../support/harness.js';
import { calls } from '../support/keys.js';
import { expectInterruptedExport } from '../support/pages-server.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';

let fx: SandboxFixture;
let tmp: { dir: string; cleanup: () => void };
beforeAll(async () => {
  fx = await sandboxFixture({ seed: false });
  tmp = tempDir('crawl-process-hangup-');
});
afterAll(async () => {
  tmp.cleanup();
  await fx.close();
});

describe('SIGHUP while job pages writes a file', () => {
  it('exit 143 as for SIGTERM, the file holds whole records, in order', async ({ expect }) => {
    const id = 'slow-out-SIGHUP';
    fx.sandbox.addJob({ id, status: 'completed', pagesTotal: 20_000 });
    // The first batch comes at once, the later ones never: only the signal ends the run.
    fx.sandbox.inject({ path: `^/api/crawl/${id}/pages`, kind: 'hang', skip: 1 });
    const file = join(tmp.dir, `${id}.ndjson`);
    const mark = fx.sandbox.requests.length;
    const waiting = (): boolean =>
      calls(fx.sandbox, mark).filter((c) => c.startsWith(`GET /api/crawl/${id}/pages`)).length >= 2 && (statSync(file, { throwIfNoEntry: false })?.size ?? 0) > 0;
    const r = await runCli(['job', 'pages', id, '--output', file], {
      process: true,
      env: fx.env,
      onSpawn: (child) => void waitFor(waiting, 10_000, 'the second batch').then(() => child.kill('SIGHUP')),
    });
    // Not killed by the signal (Node's default for SIGHUP): crawl handled it.
    expect(r.signal).toBeNull();
    expect(r.code).toBe(143);
    expect(r.stdout).toBe('');
    expectInterruptedExport(expect, file, 20_000, r.stderr);
  });
});

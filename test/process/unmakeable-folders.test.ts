// A folder crawl needs that no one can make, under /proc (Linux answers ENOENT for a new folder
// there, where Node's own recursive mkdir retries for ever, at full CPU, deaf to SIGTERM): the
// config file's, the job history's, the code cache's. Each run ends, as it would for any folder it
// cannot make. Spawned, each under a hang guard that kills it: a loop in this process could not be
// stopped.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/harness.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';

const UNMAKEABLE = '/proc/crawl-no-such-folder';
/** Far past any run here; only a run that loops reaches it. */
const HANG_GUARD_MS = 15_000;

let fx: SandboxFixture;
beforeAll(async () => {
  fx = await sandboxFixture();
});
afterAll(() => fx.close());

describe.runIf(process.platform === 'linux')('a folder under /proc', () => {
  it('the config folder: one line and exit 1, nothing changed', async () => {
    const r = await runCli(['config', 'set', 'base-url', 'https://crawl.example'], { process: true, env: { CRAWL_CONFIG_DIR: `${UNMAKEABLE}/crawl` }, timeoutMs: HANG_GUARD_MS });
    expect(r.timedOut).toBe(false);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^crawl: cannot write config file \/proc\/crawl-no-such-folder\/crawl\/config\.json: no such file or folder \(ENOENT\)\nhint: /);
  });

  it('the job history and the code cache: the job is shown, nothing kept', async () => {
    const r = await runCli(['job', 'demo-small', '--json'], { process: true, env: { ...fx.env, XDG_STATE_HOME: UNMAKEABLE, XDG_CACHE_HOME: UNMAKEABLE }, timeoutMs: HANG_GUARD_MS });
    expect(r.timedOut).toBe(false);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).job.id).toBe('demo-small');
  });
});

// Errors under --json / --jq: the JSON line for a script (stderr not a terminal), the text lines
// for a person (stderr a terminal), whatever stdout is.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';
import { crawl } from '../support/harness.js';

let fx: SandboxFixture;
beforeAll(async () => {
  fx = await sandboxFixture({ seed: false });
});
afterAll(async () => {
  await fx.close();
});

describe.each([['--json'], ['--jq', '.']])('an error under %s', (...flag) => {
  it('stderr a terminal: the text lines, even with stdout in a pipe', async () => {
    const r = await crawl(['job', 'status', 'no-such-job', ...flag], { env: fx.env, tty: { stderr: true } });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^crawl: .*no-such-job/);
    expect(r.stderr).not.toContain('{"error"');
  });

  it('stderr not a terminal: one JSON line, even with stdout a terminal', async () => {
    const r = await crawl(['job', 'status', 'no-such-job', ...flag], { env: fx.env, tty: { stdout: true } });
    expect(r.code).toBe(3);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ error: { httpStatus: 404, exitCode: 3 } });
  });

  it('a usage error before the command runs follows the same rule', async () => {
    const onTerminal = await crawl(['job', 'status', ...flag], { env: fx.env, tty: true });
    expect(onTerminal.code).toBe(2);
    expect(onTerminal.stderr).toMatch(/^crawl: /);
    const inPipe = await crawl(['job', 'status', ...flag], { env: fx.env });
    expect(inPipe.code).toBe(2);
    expect(JSON.parse(inPipe.stderr.trimEnd())).toMatchObject({ error: { exitCode: 2 } });
  });
});

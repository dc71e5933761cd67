import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { sandboxFixture, type SandboxFixture } from './helpers/sandbox.js';

let fx: SandboxFixture;
beforeAll(async () => {
  fx = await sandboxFixture();
});
afterAll(() => fx.close());

describe('harness', () => {
  it('runs the CLI plain and in a terminal', async () => {
    const plain = await runCli(['job', 'demo-small'], { env: fx.env });
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain('status\tcompleted\n');
    const tty = await runCli(['job', 'demo-small'], { env: fx.env, tty: true });
    expect(tty.code).toBe(0);
    expect(tty.stdout).toMatch(/Progress\s+42\/42 pages \(100%\)/);
  });
});

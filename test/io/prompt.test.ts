// Prompts (src/io/prompt.ts) at a terminal: Ctrl-C or Ctrl-D at a confirmation or at the hidden
// key prompt ends the prompt's line, so what follows starts a line of its own. In this process, on
// memory terminals.
import { join } from 'node:path';
import type { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { TestStreams } from '../../src/io/test-streams.js';
import { sandboxSuite } from '../support/sandbox.js';
import { crawl, runCli, waitFor } from '../support/harness.js';

const suite = sandboxSuite();

describe('Ctrl-C and Ctrl-D at a prompt end the prompt line', () => {
  it('keys revoke, Ctrl-C at the confirmation: exit 130, the line ended, nothing revoked', async () => {
    const key = suite.fx.sandbox.addKey('prompt-victim');
    const r = await runCli(['keys', 'revoke', key.id], {
      env: suite.fx.env,
      tty: true,
      onSpawn: (child, out) => void waitFor(() => out.stdout().includes('[y/N] '), 10_000, 'the prompt').then(() => child.kill('SIGINT')),
    });
    expect(r.code).toBe(130);
    expect(r.stdout.endsWith('[y/N] \n')).toBe(true);
    expect(suite.fx.sandbox.requests.some((q) => q.method === 'DELETE' && q.url.endsWith(key.id))).toBe(false);
  });

  it('Ctrl-D (the end of input) at the confirmation: the refusal starts a line of its own', async () => {
    const key = suite.fx.sandbox.addKey('prompt-eof');
    let streams!: TestStreams;
    const run = crawl(['keys', 'revoke', key.id], { env: suite.fx.env, tty: true, columns: 120, onStreams: (s) => (streams = s) });
    await waitFor(() => streams.outputText().includes('[y/N] '), 10_000, 'the prompt');
    // What the terminal turns Ctrl-D into: the end of the input.
    (streams.stdin as PassThrough).end();
    expect((await run).code).toBe(2);
    expect(streams.outputText()).toMatch(/\[y\/N\] \ncrawl: not confirmed: nothing was revoked\n$/);
  });

  it('the hidden key prompt, ^C typed: exit 130, the line ended once', async () => {
    const r = await runCli(['auth', 'login'], {
      env: { ...suite.fx.env, CRAWL_API_KEY: undefined, CRAWL_CONFIG_DIR: join(suite.dir, 'hidden') },
      tty: true,
      onSpawn: (child, out) => void waitFor(() => out.stdout().includes('Paste your API key: '), 10_000, 'the prompt').then(() => child.stdin?.write('crk_half\u0003')),
    });
    expect(r.code).toBe(130);
    expect(r.stdout.endsWith('? Paste your API key: \n')).toBe(true);
    expect(r.stdout).not.toContain('crk_half');
  });
});

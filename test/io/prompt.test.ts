// Prompts (src/io/prompt.ts) at a terminal: Ctrl-C or Ctrl-D at a confirmation or at the hidden
// key prompt ends the prompt's line, so what follows starts a line of its own; Ctrl-Z then Enter
// ends typed input at a Windows console. In this process, on memory terminals.
import { join } from 'node:path';
import type { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createIO } from '../../src/io/io.js';
import { readAllStdin } from '../../src/io/prompt.js';
import { testStreams, type TestStreams } from '../../src/io/test-streams.js';
import { Redactor } from '../../src/text/redact.js';
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

describe('readAllStdin at a Windows console: a line that holds Ctrl-Z ends the input', () => {
  /** Reads a terminal's stdin on `os`, typing `chunks` one after another (each as Enter sends it). */
  const read = async (os: NodeJS.Platform, chunks: string[]): Promise<string> => {
    const streams = testStreams({ tty: true });
    const io = createIO(streams, new Redactor(), { env: {}, noColor: true, noInput: false });
    const text = readAllStdin(io, new AbortController().signal, { platform: { os } });
    for (const chunk of chunks) streams.type(chunk);
    return text;
  };

  it.each([
    ['alone on its line, after the text', ['crk_first\r\n', '\x1a\r\n'], 'crk_first'],
    ['after text on the same line: the text before it is kept', ['crk_same\x1a\r\n'], 'crk_same'],
    ['with lines after it (pasted): they are not read', ['two\r\nlines\r\n\x1a\r\nmore\r\n'], 'two\r\nlines'],
  ])('%s', async (_, chunks, expected) => {
    expect(await read('win32', chunks)).toBe(expected);
  });
});

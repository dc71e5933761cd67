// `auth login` in words a Windows user types back (the platform given, on this system): the keys
// that end input at a console, what they send, and the piped-file form PowerShell takes.
import type { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { InterruptedError } from '../../../src/errors.js';
import type { Platform } from '../../../src/platform/platform.js';
import { crawl, waitFor } from '../../support/harness.js';
import { sandboxFixture } from '../../support/sandbox.js';

// No home, and nothing typed: these runs store nothing anywhere.
const on = (os: NodeJS.Platform): Platform => ({ os, home: '' });

describe('`auth login --with-key` on a terminal names the keys that end the input', () => {
  it.each([
    ['win32', 'Ctrl-Z, then Enter'],
    ['darwin', 'Ctrl-D'],
    ['linux', 'Ctrl-D'],
  ] as const)('%s: %s', async (os, keys) => {
    const fx = await sandboxFixture({ seed: false });
    try {
      const interrupt = new AbortController();
      const r = await crawl(['auth', 'login', '--with-key'], {
        env: { ...fx.env, CRAWL_API_KEY: undefined },
        tty: true,
        platform: on(os),
        signal: interrupt.signal,
        onStreams: (streams) =>
          void waitFor(() => streams.outputText().includes('Reading the key'), 10_000, 'the notice').then(() => interrupt.abort(new InterruptedError(130))),
      });
      expect(r.code).toBe(130);
      expect(r.output).toContain(`paste it, press Enter, then ${keys}. It shows as you type`);
    } finally {
      await fx.close();
    }
  });
});

describe('Ctrl-Z then Enter ends `--with-key` input at a Windows console (Node sees 1A 0D 0A, never the end of input)', () => {
  const KEY_TYPED = (key: string): string => `${key}\r\n\x1a\r\n`;

  it('win32, a terminal: the line with Ctrl-Z ends the input, and the key before it is the one sent', async () => {
    const fx = await sandboxFixture({ seed: false });
    try {
      // A working key, typed; the service's answer to the check is a refusal, so nothing is stored.
      const typed = fx.sandbox.addKey('typed-at-a-console');
      fx.sandbox.inject({ path: '^/api/', kind: 'status', status: 401, times: 1 });
      const mark = fx.sandbox.requests.length;
      // Typed and left open, as a console does: only the Ctrl-Z line can end the read.
      const r = await crawl(['auth', 'login', '--with-key'], {
        env: { ...fx.env, CRAWL_API_KEY: undefined },
        tty: true,
        input: KEY_TYPED(typed.key),
        platform: on('win32'),
      });
      expect(r.code).toBe(4);
      expect(r.output).toContain('crawl: the service rejected the key (HTTP 401); nothing was saved');
      // One check, with a key the service knows: the one typed (the only other is the sandbox's own, never given).
      expect(fx.sandbox.requests.slice(mark).map((q) => q.authorized)).toEqual([true]);
    } finally {
      await fx.close();
    }
  });

  it.each([
    ['linux, a terminal', 'linux', true],
    ['win32, a pipe', 'win32', false],
  ] as const)('%s: Ctrl-Z is a character like any other, read on to the end of input', async (_, os, tty) => {
    const fx = await sandboxFixture({ seed: false });
    try {
      const r = await crawl(['auth', 'login', '--with-key', '--insecure-storage'], {
        env: { ...fx.env, CRAWL_API_KEY: undefined },
        tty,
        input: KEY_TYPED(fx.sandbox.key),
        platform: on(os),
        // The terminal's end of input (Ctrl-D) once all is typed; a pipe ends after its text by itself.
        onStreams: (streams) => void (tty && setImmediate(() => (streams.stdin as PassThrough).end())),
      });
      expect(r.code).toBe(2);
      expect(r.output).toContain('crawl: the key contains white space; give exactly one key');
    } finally {
      await fx.close();
    }
  });
});

describe('where no prompt can be shown, the hint pipes a key file in, in the words of the shell in use', () => {
  it.each([
    ['win32', {}, '`Get-Content keyfile | crawl auth login --with-key`'],
    // Git Bash, MSYS2: bash, which has no Get-Content.
    ['win32', { MSYSTEM: 'MINGW64' }, '`crawl auth login --with-key < keyfile`'],
    // A POSIX terminal named without MSYS: the shell cannot be told.
    ['win32', { TERM: 'xterm-256color' }, '`crawl auth login --with-key < keyfile` in bash or cmd, `Get-Content keyfile | crawl auth login --with-key` in PowerShell'],
    ['darwin', {}, '`crawl auth login --with-key < keyfile`'],
    ['linux', { MSYSTEM: 'MINGW64' }, '`crawl auth login --with-key < keyfile`'],
  ] as const)('%s with %j: %s', async (os, env, form) => {
    const fx = await sandboxFixture({ seed: false });
    try {
      const r = await crawl(['auth', 'login'], { env: { ...fx.env, CRAWL_API_KEY: undefined, ...env }, platform: on(os) });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`hint: pipe the key in with ${form}\n`);
    } finally {
      await fx.close();
    }
  });
});

// `auth login` in words a Windows user types back (the platform given, on this system): the keys
// that end input at a console, and the piped-file form PowerShell takes.
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

describe('where no prompt can be shown, the hint pipes a key file in', () => {
  it.each([
    ['win32', 'Get-Content keyfile | crawl auth login --with-key'],
    ['darwin', 'crawl auth login --with-key < keyfile'],
    ['linux', 'crawl auth login --with-key < keyfile'],
  ] as const)('%s: `%s`', async (os, form) => {
    const fx = await sandboxFixture({ seed: false });
    try {
      const r = await crawl(['auth', 'login'], { env: { ...fx.env, CRAWL_API_KEY: undefined }, platform: on(os) });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`hint: pipe the key in with \`${form}\``);
    } finally {
      await fx.close();
    }
  });
});

// `auth login --with-token`: gh's spelling of --with-key, understood the same (the key on
// standard input, checked, then stored). In this process, against the sandbox.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { maskKey } from '../../../src/text/mask.js';
import { sandboxFixture, type SandboxFixture } from '../../support/sandbox.js';
import { crawl } from '../../support/harness.js';

let fx: SandboxFixture;
beforeEach(async () => {
  fx = await sandboxFixture({ seed: false });
});
afterEach(() => fx.close());

describe('auth login --with-token', () => {
  it('reads the key from standard input, as --with-key does', async () => {
    const key = fx.sandbox.addKey('gh-hands').key;
    const env = { ...fx.env, CRAWL_API_KEY: undefined };
    const r = await crawl(['auth', 'login', '--with-token'], { env, input: key + '\n' });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`key ${maskKey(key)}): the service accepts the key`);
    // Stored where the profile's key is read from: the next command uses it.
    const status = await crawl(['auth', 'status', '--json'], { env });
    expect(status.code).toBe(0);
    expect(status.stdout).not.toContain(key);
    expect(status.stdout).toContain(maskKey(key));
  });
});

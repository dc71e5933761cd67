// `crawl keys revoke <a full key>`: keys never belong on the command line (shell history, process
// lists). Whatever its shape, it is refused with exit 2, never echoed (plain, --json, --verbose),
// nothing is revoked, and when it can be told without the list, no request is made at all.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../support/cli.js';
import { calls, configProfile, keyStatus } from '../../support/keys.js';
import { sandboxFixture, type SandboxFixture } from '../../support/sandbox.js';

let fx: SandboxFixture;
beforeEach(async () => {
  fx = await sandboxFixture({ seed: false });
});
afterEach(() => fx.close());

const NEVER_ON_THE_COMMAND_LINE = /Keys never belong on the command line, where shell history and process lists keep them/;

/** Nothing in any output holds `secret` or a long piece of it (the part after its first 12 characters). */
function notEchoed(text: string, secret: string): void {
  expect(text).not.toContain(secret);
  expect(text).not.toContain(secret.slice(12));
}

describe('keys revoke refuses a full key before any request', () => {
  it('the configured key itself (CRAWL_API_KEY), in every mode', async () => {
    const mine = fx.sandbox.addKey('mine');
    const env = { ...fx.env, CRAWL_API_KEY: mine.key };
    for (const extra of [[], ['--json'], ['--verbose'], ['--force']]) {
      const before = fx.sandbox.requests.length;
      const r = await runCli(['keys', 'revoke', mine.key, '--yes', ...extra], { env });
      expect(r.code, extra.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/argument 1 looks like a full API key, not a key's id or prefix: not shown, not used, and nothing was revoked/);
      expect(r.stderr).toMatch(NEVER_ON_THE_COMMAND_LINE);
      notEchoed(r.stderr, mine.key);
      expect(calls(fx.sandbox, before)).toEqual([]);
    }
    expect(await keyStatus(fx.sandbox, mine.key)).toBe(200);
  });

  it('the key stored in the config file', async () => {
    const stored = fx.sandbox.addKey('stored');
    const profile = configProfile(fx.sandbox, stored.key);
    try {
      const before = fx.sandbox.requests.length;
      const r = await runCli(['keys', 'revoke', stored.key, '--yes'], { env: { ...fx.env, ...profile.env } });
      expect(r.code).toBe(2);
      notEchoed(r.stderr, stored.key);
      expect(calls(fx.sandbox, before)).toEqual([]);
    } finally {
      profile.cleanup();
    }
  });

  it('the profile\'s stored key while CRAWL_API_KEY holds another of a different shape: still known, no request', async () => {
    const stored = fx.sandbox.addKey('stored', { key: `zz_${'s'.repeat(30)}` });
    const profile = configProfile(fx.sandbox, stored.key);
    try {
      const before = fx.sandbox.requests.length;
      const r = await runCli(['keys', 'revoke', stored.key, '--yes'], { env: { ...fx.env, ...profile.env, CRAWL_API_KEY: fx.sandbox.key } });
      expect(r.code).toBe(2);
      notEchoed(r.stderr, stored.key);
      expect(calls(fx.sandbox, before)).toEqual([]);
    } finally {
      profile.cleanup();
    }
  });

  it("another key of the configured key's shape, with white space around it, or longer", async () => {
    const other = fx.sandbox.addKey('other');
    for (const arg of [other.key, ` ${other.key}\n`, `${other.key}XYZ`, `crk_${'A'.repeat(40)}`]) {
      const before = fx.sandbox.requests.length;
      const r = await runCli(['keys', 'revoke', arg, '--yes'], { env: fx.env });
      expect(r.code, JSON.stringify(arg)).toBe(2);
      notEchoed(r.stderr, arg.trim());
      expect(calls(fx.sandbox, before)).toEqual([]);
    }
    expect(await keyStatus(fx.sandbox, other.key)).toBe(200);
  });

  it('among other arguments: nothing is revoked, and only its position is named', async () => {
    const a = fx.sandbox.addKey('a');
    const b = fx.sandbox.addKey('b');
    const before = fx.sandbox.requests.length;
    const r = await runCli(['keys', 'revoke', a.id, b.key, a.key, '--yes'], { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^crawl: arguments 2, 3 look like a full API key/);
    notEchoed(r.stderr, a.key);
    notEchoed(r.stderr, b.key);
    expect(calls(fx.sandbox, before)).toEqual([]);
    expect([await keyStatus(fx.sandbox, a.key), await keyStatus(fx.sandbox, b.key)]).toEqual([200, 200]);
  });
});

describe('keys revoke refuses a full key found by the list, before any DELETE', () => {
  it('a key of another shape that begins with a listed keyPrefix and is longer', async () => {
    const odd = fx.sandbox.addKey('odd', { key: `xyz_${'q'.repeat(30)}` });
    for (const extra of [[], ['--json']]) {
      const before = fx.sandbox.requests.length;
      const r = await runCli(['keys', 'revoke', odd.key, '--yes', ...extra], { env: fx.env });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(NEVER_ON_THE_COMMAND_LINE);
      notEchoed(r.stdout + r.stderr, odd.key);
      expect(calls(fx.sandbox, before)).toEqual(['GET /api/keys']);
    }
    expect(await keyStatus(fx.sandbox, odd.key)).toBe(200);
  });

  it('the key is never sent in any request (no URL holds it), even with --verbose', async () => {
    const odd = fx.sandbox.addKey('odd', { key: `zz_${'w'.repeat(30)}` });
    const r = await runCli(['keys', 'revoke', odd.key, '--yes', '--verbose'], { env: fx.env });
    expect(r.code).toBe(2);
    expect(fx.sandbox.requests.some((q) => q.url.includes('w'.repeat(20)))).toBe(false);
    notEchoed(r.stderr, odd.key);
  });
});

describe('what is not a full key still works', () => {
  it('an id and a unique prefix are revoked as before', async () => {
    const a = fx.sandbox.addKey('a');
    const b = fx.sandbox.addKey('b');
    const r = await runCli(['keys', 'revoke', a.id, b.keyPrefix, '--yes'], { env: fx.env });
    expect(r.code).toBe(0);
    expect([await keyStatus(fx.sandbox, a.key), await keyStatus(fx.sandbox, b.key)]).toEqual([401, 401]);
  });
});

// Which key is in use, when the list cannot say for certain: two keys with the same keyPrefix, or
// one listed prefix beginning another, both beginning the configured key. `list` says so instead of
// guessing, `revoke` wants --force for every candidate, and `rotate` changes nothing.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../support/harness.js';
import { calls, configProfile, fullKeysIn, keyStatus, storedKey } from '../../support/keys.js';
import { sandboxFixture, type SandboxFixture } from '../../support/sandbox.js';

type Added = { id: string; key: string; keyPrefix: string; name: string };

let fx: SandboxFixture;
beforeEach(async () => {
  fx = await sandboxFixture({ seed: false });
});
afterEach(() => fx.close());

const tail = (): string => randomBytes(16).toString('hex');

/** The key in use and a look-alike, in each ambiguous form. */
const FORMS: Array<{ form: string; make: (fx: SandboxFixture) => { mine: Added; twin: Added } }> = [
  {
    form: 'two keys with the same keyPrefix',
    make: (f) => ({
      mine: f.sandbox.addKey('mine', { key: `crk_DUPLICATE${tail()}` }),
      twin: f.sandbox.addKey('twin', { key: `crk_DUPLICATE${tail()}` }),
    }),
  },
  {
    form: 'a longer listed prefix beginning the key (longest-prefix-wins would pick it)',
    make: (f) => {
      const key = `crk_NESTEDab${tail()}`;
      return {
        mine: f.sandbox.addKey('mine', { key, keyPrefix: 'crk_NEST' }),
        twin: f.sandbox.addKey('twin', { key: `crk_NESTEDab${tail()}` }),
      };
    },
  },
  {
    form: 'a shorter listed prefix beginning the key',
    make: (f) => {
      const key = `crk_SHORTabc${tail()}`;
      return {
        mine: f.sandbox.addKey('mine', { key }),
        twin: f.sandbox.addKey('twin', { key: `crk_SHORTzzz${tail()}`, keyPrefix: 'crk_SHORT' }),
      };
    },
  },
];

const rows = (stdout: string): string[][] => stdout.split('\n').filter((l) => l !== '').map((l) => l.split('\t'));
const sent = (from: number, method: string): string[] => calls(fx.sandbox, from).filter((c) => c.startsWith(method));

describe.each(FORMS)('the key in use cannot be told apart: $form', ({ make }) => {
  it('keys list: each candidate is `unknown` in plain rows and `(in use?)` on a terminal, others not; stderr says so', async () => {
    const { mine, twin } = make(fx);
    const other = fx.sandbox.addKey('other');
    const env = { ...fx.env, CRAWL_API_KEY: mine.key };
    const plain = await runCli(['keys', 'list'], { env });
    expect(plain.code).toBe(0);
    const inUse = new Map(rows(plain.stdout).map((row) => [row[0], row[5]]));
    expect(inUse.get(mine.id)).toBe('unknown');
    expect(inUse.get(twin.id)).toBe('unknown');
    expect(inUse.get(other.id)).toBe('false');
    const bootstrap = rows(plain.stdout).find((row) => fx.sandbox.key.startsWith(row[2] ?? '-'));
    expect(bootstrap?.[5]).toBe('false');
    expect([...inUse.values()]).not.toContain('true');
    expect(plain.stderr).toMatch(/^crawl: warning: the key in use cannot be told apart: the prefixes of 2 listed keys begin it \(.*"mine".*"twin".*\)/);

    const tty = await runCli(['keys', 'list', '--no-color'], { env, tty: true });
    expect(tty.code).toBe(0);
    const line = (id: string): string => tty.stdout.split('\n').find((l) => l.startsWith(id)) ?? '';
    expect(line(mine.id)).toMatch(/mine \(in use\?\)/);
    expect(line(twin.id)).toMatch(/twin \(in use\?\)/);
    expect(line(other.id)).not.toMatch(/in use/);
    expect(tty.stdout).not.toMatch(/\(in use\)/);
    expect(tty.stdout).toContain('cannot be told apart');

    // --json: the body as received, and stderr stays empty for the script.
    const json = await runCli(['keys', 'list', '--json'], { env });
    expect(json.code).toBe(0);
    expect(json.stderr).toBe('');
    expect(fullKeysIn(plain.stdout + plain.stderr + tty.stdout + json.stdout)).toEqual([]);
  });

  it('keys revoke: either candidate needs --force ("may be the key in use"); an unrelated key does not', async () => {
    const { mine, twin } = make(fx);
    const other = fx.sandbox.addKey('other');
    const env = { ...fx.env, CRAWL_API_KEY: mine.key };
    for (const target of [twin, mine]) {
      const before = fx.sandbox.requests.length;
      const r = await runCli(['keys', 'revoke', target.id, '--yes'], { env });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/may be the key in use .*cannot be told apart.*nothing was revoked/);
      expect(r.stderr).toContain('crawl keys rotate');
      expect(sent(before, 'DELETE')).toEqual([]);
    }
    const fine = await runCli(['keys', 'revoke', other.id, '--yes'], { env });
    expect(fine.code).toBe(0);
    expect(await keyStatus(fx.sandbox, other.key)).toBe(401);

    const forced = await runCli(['keys', 'revoke', twin.id, '--yes', '--force'], { env });
    expect(forced.code).toBe(0);
    expect(forced.stderr).toMatch(/note: the key in use may have been revoked; check with `crawl auth status`/);
    expect(await keyStatus(fx.sandbox, twin.key)).toBe(401);
    expect(await keyStatus(fx.sandbox, mine.key)).toBe(200);
  });

  it('keys rotate (key from CRAWL_API_KEY): refuses before creating anything, exit 1', async () => {
    const { mine, twin } = make(fx);
    const dir = fx.configDir;
    const out = join(dir, 'new.key');
    const before = fx.sandbox.requests.length;
    const r = await runCli(['keys', 'rotate', '--yes', '--output-file', out], { env: { ...fx.env, CRAWL_API_KEY: mine.key } });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^crawl: the key in use \(crk_\S+\) cannot be told apart: the prefixes of 2 listed keys begin it .*rotating could revoke the wrong key, so nothing was changed\n/);
    expect(r.stderr).toMatch(/hint: replace it by hand: `crawl keys create <name> --output-file <path>`, then revoke the old key by its id once you know which it is/);
    expect(calls(fx.sandbox, before)).toEqual(['GET /api/keys']);
    expect(existsSync(out)).toBe(false);
    expect([await keyStatus(fx.sandbox, mine.key), await keyStatus(fx.sandbox, twin.key)]).toEqual([200, 200]);
    expect(fullKeysIn(r.stderr)).toEqual([]);
  });

  it('keys rotate (key in the config file): refuses, the config untouched', async () => {
    const { mine, twin } = make(fx);
    const profile = configProfile(fx.sandbox, mine.key);
    try {
      const before = fx.sandbox.requests.length;
      const r = await runCli(['keys', 'rotate', '--yes', '--json'], { env: { ...fx.env, ...profile.env } });
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      const error = JSON.parse(r.stderr).error;
      expect(error.exitCode).toBe(1);
      expect(error.message).toMatch(/cannot be told apart/);
      expect(sent(before, 'POST')).toEqual([]);
      expect(sent(before, 'DELETE')).toEqual([]);
      expect(storedKey(profile.file)).toBe(mine.key);
      expect([await keyStatus(fx.sandbox, mine.key), await keyStatus(fx.sandbox, twin.key)]).toEqual([200, 200]);
    } finally {
      profile.cleanup();
    }
  });
});

describe('keys rotate checks the old key again before revoking it (step 5)', () => {
  /** A profile whose config holds `ci`; the list seen with the new key (the second GET) is `keys`. */
  function setup(keys: (ci: Added) => unknown[]) {
    const ci = fx.sandbox.addKey('ci');
    const profile = configProfile(fx.sandbox, ci.key);
    fx.sandbox.inject({ method: 'GET', path: '/api/keys', kind: 'status', status: 200, skip: 1, times: 1, body: JSON.stringify({ success: true, keys: keys(ci) }) });
    return { ci, profile, env: { ...fx.env, ...profile.env } };
  }

  it('the old id is no longer listed: nothing revoked, the new key stored, exit 3, and it says what is known', async () => {
    const { ci, profile, env } = setup(() => []);
    try {
      const before = fx.sandbox.requests.length;
      const r = await runCli(['keys', 'rotate', '--yes'], { env });
      expect(r.code).toBe(3);
      expect(sent(before, 'DELETE')).toEqual([]);
      expect(r.stderr).toMatch(/step 5 of 5 \(revoke the old key\): the service no longer lists the old key "ci"/);
      expect(r.stderr).toMatch(/it may have been revoked meanwhile; nothing was revoked\./);
      expect(r.stderr).not.toMatch(/still active/);
      expect(r.stderr).toContain('hint: check with `crawl keys list` that the old key is gone');
      const fresh = storedKey(profile.file);
      expect(fresh).not.toBe(ci.key);
      expect([await keyStatus(fx.sandbox, fresh), await keyStatus(fx.sandbox, ci.key)]).toEqual([200, 200]);
      expect(fullKeysIn(r.stdout + r.stderr)).toEqual([]);
    } finally {
      profile.cleanup();
    }
  });

  it('the old id is listed with another prefix: nothing revoked, exit 1', async () => {
    const { ci, profile, env } = setup((c) => [{ id: c.id, name: 'ci', keyPrefix: 'crk_SOMEONE', lastUsedAt: null, createdAt: new Date().toISOString() }]);
    try {
      const before = fx.sandbox.requests.length;
      const r = await runCli(['keys', 'rotate', '--yes'], { env });
      expect(r.code).toBe(1);
      expect(sent(before, 'DELETE')).toEqual([]);
      expect(r.stderr).toMatch(new RegExp(`now lists ${ci.id} with another prefix than the key in use had \\(${ci.keyPrefix}\\): it may not be that key any more, so nothing was revoked`));
      expect(await keyStatus(fx.sandbox, ci.key)).toBe(200);
      expect(storedKey(profile.file)).not.toBe(ci.key);
    } finally {
      profile.cleanup();
    }
  });

  it('the new key comes back listed under the old id: nothing revoked, exit 1', async () => {
    const ci = fx.sandbox.addKey('ci');
    const profile = configProfile(fx.sandbox, ci.key);
    // A service that hands out a key beginning with the old key's prefix and lists only that prefix.
    const fake = `${ci.keyPrefix}${tail()}`;
    fx.sandbox.inject({ method: 'POST', path: '/api/keys', kind: 'status', status: 201, times: 1, body: JSON.stringify({ success: true, key: fake, prefix: ci.keyPrefix, name: 'x' }) });
    fx.sandbox.inject({ method: 'GET', path: '/api/keys', kind: 'status', status: 200, skip: 1, times: 1, body: JSON.stringify({ success: true, keys: [{ id: ci.id, name: 'ci', keyPrefix: ci.keyPrefix }] }) });
    try {
      const before = fx.sandbox.requests.length;
      const r = await runCli(['keys', 'rotate', '--yes'], { env: { ...fx.env, ...profile.env } });
      expect(r.code).toBe(1);
      expect(sent(before, 'DELETE')).toEqual([]);
      expect(r.stderr).toMatch(/lists the new key under the old key's id .*nothing was revoked/);
      expect(await keyStatus(fx.sandbox, ci.key)).toBe(200);
      expect(r.stdout + r.stderr).not.toContain(fake);
    } finally {
      profile.cleanup();
    }
  });
});

describe('keys rotate, the old key\'s DELETE answers 404', () => {
  for (const [form, fault] of [
    ['a JSON error body', { body: JSON.stringify({ success: false, error: 'Key not found' }) }],
    ['a plain-text body', { body: 'Not Found', contentType: 'text/plain' }],
    ['an empty body', { body: '' }],
  ] as const) {
    it(`(${form}): says the service no longer has it, never "still active"; the new key stays stored (exit 3)`, async () => {
      const ci = fx.sandbox.addKey('ci');
      const profile = configProfile(fx.sandbox, ci.key);
      fx.sandbox.inject({ method: 'DELETE', path: `/api/keys/${ci.id}`, kind: 'status', status: 404, times: 1, ...fault });
      try {
        const r = await runCli(['keys', 'rotate', '--yes'], { env: { ...fx.env, ...profile.env } });
        expect(r.code).toBe(3);
        expect(r.stderr).toMatch(/step 5 of 5 \(revoke the old key\): DELETE \/api\/keys\/\S+ failed: HTTP 404/);
        expect(r.stderr).toMatch(/The service no longer has the old key "ci" \(key_\w+\) \(HTTP 404\): it may have been revoked meanwhile; this rotation did not revoke it\./);
        expect(r.stderr).not.toMatch(/still active/);
        expect(r.stderr).toContain('hint: check with `crawl keys list` that the old key is gone');
        const fresh = storedKey(profile.file);
        expect(fresh).not.toBe(ci.key);
        expect(await keyStatus(fx.sandbox, fresh)).toBe(200);
      } finally {
        profile.cleanup();
      }
    });
  }
});

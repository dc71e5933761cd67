// Ids from the service go into URL paths. One that cannot be a single path segment ('..', '.',
// '', a lone surrogate) is found before any request with side effects: `keys rotate` stops at
// step 1 with nothing created, `keys revoke` before its first DELETE. Exit 1: the id came from the
// service (a malformed answer), not from the user.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../support/harness.js';
import { calls, configProfile, keyStatus, storedKey } from '../../support/keys.js';
import { sandboxFixture, type SandboxFixture } from '../../support/sandbox.js';

let fx: SandboxFixture;
beforeEach(async () => {
  fx = await sandboxFixture({ seed: false });
});
afterEach(() => fx.close());

const BAD_IDS = ['..', '.', '', '\ud800'];
const listed = (keys: Array<{ id: string; keyPrefix: string; name: string }>): string =>
  JSON.stringify({ success: true, keys: keys.map((k) => ({ ...k, lastUsedAt: null, createdAt: '2026-01-01T00:00:00Z' })) });
const sent = (from: number, method: string): string[] => calls(fx.sandbox, from).filter((c) => c.startsWith(method));

describe.each(BAD_IDS.map((id) => ({ id, shown: JSON.stringify(id) })))('a listed key id $shown', ({ id }) => {
  it('keys rotate (config): stops at step 1, nothing created, the config untouched (exit 1)', async () => {
    const ci = fx.sandbox.addKey('ci');
    const profile = configProfile(fx.sandbox, ci.key);
    fx.sandbox.inject({ method: 'GET', path: '/api/keys', kind: 'status', status: 200, times: 1, body: listed([{ id, name: 'ci', keyPrefix: ci.keyPrefix }]) });
    try {
      const before = fx.sandbox.requests.length;
      const r = await runCli(['keys', 'rotate', '--yes'], { env: { ...fx.env, ...profile.env } });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^crawl: the service lists the key in use .* with an id that cannot be sent in a URL path \(.*\), so it could not be revoked: nothing was changed\n/);
      expect(calls(fx.sandbox, before)).toEqual(['GET /api/keys']);
      expect(storedKey(profile.file)).toBe(ci.key);
      expect(r.stdout).toBe('');
    } finally {
      profile.cleanup();
    }
  });

  it('keys rotate (CRAWL_API_KEY, --json): the same, before any POST', async () => {
    const ci = fx.sandbox.addKey('ci');
    fx.sandbox.inject({ method: 'GET', path: '/api/keys', kind: 'status', status: 200, times: 1, body: listed([{ id, name: 'ci', keyPrefix: ci.keyPrefix }]) });
    const before = fx.sandbox.requests.length;
    const r = await runCli(['keys', 'rotate', '--yes', '--json', '--output-file', `${fx.configDir}/never.key`], { env: { ...fx.env, CRAWL_API_KEY: ci.key } });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stderr).error.message).toMatch(/cannot be sent in a URL path/);
    expect(sent(before, 'POST')).toEqual([]);
  });

  it('keys revoke: a batch naming it revokes nothing, not even the good key before it (exit 1)', async () => {
    const good = fx.sandbox.addKey('good');
    fx.sandbox.inject({
      method: 'GET',
      path: '/api/keys',
      kind: 'status',
      status: 200,
      times: 1,
      body: listed([{ id: good.id, name: 'good', keyPrefix: good.keyPrefix }, { id, name: 'odd', keyPrefix: 'crk_ODDPATH1' }]),
    });
    const before = fx.sandbox.requests.length;
    const r = await runCli(['keys', 'revoke', good.id, 'crk_ODDPATH1', '--yes'], { env: fx.env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^crawl: the service lists key "odd" .* with an id that cannot be sent in a URL path .*: nothing was revoked\n/);
    expect(sent(before, 'DELETE')).toEqual([]);
    expect(await keyStatus(fx.sandbox, good.key)).toBe(200);
  });
});

// Only the configured origin can say whether it accepts a key. A redirect to another origin
// carries no key there, so whatever that origin answers (200 or 401) proves nothing: `keys
// rotate` (step 3), `auth login` and `auth status` fail the check instead of counting it.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHostile, type Hostile } from '../../support/hostile-server.js';
import { runCli } from '../../support/harness.js';
import { calls, configProfile, fullKeysIn, keyStatus, storedKey } from '../../support/keys.js';
import { sandboxFixture, type SandboxFixture } from '../../support/sandbox.js';

let fx: SandboxFixture;
let accepting: Hostile;
let refusing: Hostile;
beforeAll(async () => {
  // Another origin (another port): one that "accepts" any request, one that refuses any.
  accepting = await startHostile({ rules: [{ fault: { kind: 'respond', status: 200, body: JSON.stringify({ success: true, keys: [] }) } }] });
  refusing = await startHostile({ rules: [{ fault: { kind: 'respond', status: 401, body: JSON.stringify({ success: false, error: 'Invalid or revoked API key' }) } }] });
});
afterAll(async () => {
  await accepting.close();
  await refusing.close();
});
beforeEach(async () => {
  fx = await sandboxFixture({ seed: false });
});
afterEach(() => fx.close());

const KEY_LINE = /^crk_[A-Za-z0-9]{20,}\n$/;
const FORMS = [
  { status: 302, other: () => accepting, answers: '200' },
  { status: 307, other: () => refusing, answers: '401' },
  { status: 308, other: () => accepting, answers: '200' },
  { status: 301, other: () => refusing, answers: '401' },
] as const;

describe.each(FORMS)('a $status redirect of the check to another origin (one that would answer $answers)', ({ status, other }) => {
  it('keys rotate (config): stops at step 3, the config keeps the old key, the new key printed once, nothing revoked (exit 1)', async () => {
    const ci = fx.sandbox.addKey('ci');
    const profile = configProfile(fx.sandbox, ci.key);
    const there = other();
    const seenBefore = there.seen.length;
    fx.sandbox.inject({ method: 'GET', path: '/api/keys', kind: 'redirect', status, location: `${there.url}/api/keys`, skip: 1, times: 1 });
    try {
      const before = fx.sandbox.requests.length;
      const r = await runCli(['keys', 'rotate', '--yes'], { env: { ...fx.env, ...profile.env } });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        new RegExp(`step 3 of 5 \\(check that the service accepts the new key\\): GET /api/keys was redirected \\(HTTP ${status}\\) to another origin \\(${there.url}\\), where the key is not sent`),
      );
      expect(r.stderr).toMatch(/It was not stored: a key the service has not accepted must not replace one that works\./);
      expect(r.stderr).not.toMatch(/the service accepts it/);
      expect(r.stdout).toMatch(KEY_LINE);
      expect(storedKey(profile.file)).toBe(ci.key);
      expect(calls(fx.sandbox, before).filter((c) => c.startsWith('DELETE'))).toEqual([]);
      expect(await keyStatus(fx.sandbox, ci.key)).toBe(200);
      // Not followed at all: nothing there could count, and nothing is sent there.
      expect(there.seen.length).toBe(seenBefore);
      expect(fullKeysIn(r.stderr)).toEqual([]);
    } finally {
      profile.cleanup();
    }
  });

  it('auth login: fails, saves nothing, and says why (exit 1)', async () => {
    const key = fx.sandbox.addKey('login').key;
    const there = other();
    const seenBefore = there.seen.length;
    fx.sandbox.inject({ method: 'GET', path: '/api/keys', kind: 'redirect', status, location: `${there.url}/api/keys`, times: 1 });
    const dir = join(fx.configDir, `login-${status}`);
    const r = await runCli(['auth', 'login', '--with-key'], { env: { ...fx.env, CRAWL_API_KEY: undefined, CRAWL_CONFIG_DIR: dir }, input: key + '\n' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^crawl: GET /api/keys was redirected \\(HTTP ${status}\\) to another origin .*; nothing was saved\\n`));
    expect(r.stderr).not.toMatch(/Logged in|: the service accepts/);
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
    expect(there.seen.length).toBe(seenBefore);
    expect(r.stdout + r.stderr).not.toContain(key);
  });

  it('auth status: no verdict either way (exit 1, not 0 and not 4)', async () => {
    const there = other();
    fx.sandbox.inject({ method: 'GET', path: '/api/keys', kind: 'redirect', status, location: `${there.url}/api/keys`, times: 2 });
    const plain = await runCli(['auth', 'status'], { env: fx.env });
    expect(plain.code).toBe(1);
    expect(plain.stdout).not.toMatch(/accepted\ttrue|accepted\tfalse/);
    expect(plain.stderr).toMatch(/to another origin .*no answer from there can tell whether/);
    const json = await runCli(['auth', 'status', '--json'], { env: fx.env });
    expect(json.code).toBe(1);
    // What is known here is still shown; whether the service accepts the key is not known (null).
    expect(JSON.parse(json.stdout)).toMatchObject({ accepted: null });
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { exitCode: 1, httpStatus: status } });
  });
});

describe('the check still follows a redirect within the same origin', () => {
  it('auth login: accepted, and saved', async () => {
    const key = fx.sandbox.addKey('same-origin').key;
    fx.sandbox.inject({ method: 'GET', path: '/api/keys', kind: 'redirect', status: 307, location: '/api/keys?via=redirect', times: 1 });
    const dir = join(fx.configDir, 'same');
    const r = await runCli(['auth', 'login', '--with-key'], { env: { ...fx.env, CRAWL_API_KEY: undefined, CRAWL_CONFIG_DIR: dir }, input: key + '\n' });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/the service accepts the key/);
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.default['api-key']).toBe(key);
  });

  it('keys rotate with --output-file: the new key goes to the file all the same (a new file replaces nothing), old key kept', async () => {
    const ci = fx.sandbox.addKey('ci');
    fx.sandbox.inject({ method: 'GET', path: '/api/keys', kind: 'redirect', status: 302, location: `${accepting.url}/api/keys`, skip: 1, times: 1 });
    const out = join(fx.configDir, 'rotated.key');
    const r = await runCli(['keys', 'rotate', '--yes', '--output-file', out], { env: { ...fx.env, CRAWL_API_KEY: ci.key } });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/step 3 of 5 .*another origin/);
    expect(r.stderr).toContain(`Stored the new key in ${out}`);
    expect(await keyStatus(fx.sandbox, readFileSync(out, 'utf8').trim())).toBe(200);
    expect(await keyStatus(fx.sandbox, ci.key)).toBe(200);
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../support/cli.js';
import { activeKeys, calls, fullKeysIn, keyStatus } from '../../support/keys.js';
import { sandboxFixture, type SandboxFixture } from '../../support/sandbox.js';

type Added = { id: string; key: string; keyPrefix: string; name: string };

let fx: SandboxFixture;
let observer: Added;
beforeEach(async () => {
  fx = await sandboxFixture({ seed: false });
  observer = fx.sandbox.addKey('observer');
});
afterEach(() => fx.close());

/** The shortest beginning of `key`'s prefix that no other active key shares (after `crk_`). */
async function uniquePrefix(key: Added): Promise<string> {
  const others = (await activeKeys(fx.sandbox, observer.key)).filter((k) => k.id !== key.id).map((k) => k.keyPrefix);
  for (let n = 5; n <= key.keyPrefix.length; n++) {
    const candidate = key.keyPrefix.slice(0, n);
    if (!others.some((p) => p.startsWith(candidate))) return candidate;
  }
  throw new Error('no unique prefix');
}

const deletes = (from: number): string[] => calls(fx.sandbox, from).filter((c) => c.startsWith('DELETE'));

describe('crawl keys revoke', () => {
  it('revokes by exact id with --yes; the key then gets 401, and exit 4 on the next command', async () => {
    const ci = fx.sandbox.addKey('ci');
    const r = await runCli(['keys', 'revoke', ci.id, '--yes'], { env: fx.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`Revoked key "ci" (${ci.id}, ${ci.keyPrefix})`);
    expect(await keyStatus(fx.sandbox, ci.key)).toBe(401);
    const next = await runCli(['keys', 'list'], { env: { ...fx.env, CRAWL_API_KEY: ci.key } });
    expect(next.code).toBe(4);
    expect(next.stderr).toMatch(/revoked/);
  });

  it('revokes by a unique prefix of keyPrefix, and --json prints the service body', async () => {
    const ci = fx.sandbox.addKey('ci');
    const prefix = await uniquePrefix(ci);
    const r = await runCli(['keys', 'revoke', prefix, '--yes', '--json'], { env: fx.env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ success: true, id: ci.id, revoked: true });
    expect(r.stderr).toBe('');
    expect(await keyStatus(fx.sandbox, ci.key)).toBe(401);
  });

  it('an ambiguous prefix is exit 2 naming the candidates, and nothing is revoked', async () => {
    const a = fx.sandbox.addKey('a');
    const b = fx.sandbox.addKey('b');
    const before = fx.sandbox.requests.length;
    const r = await runCli(['keys', 'revoke', 'crk_', '--yes'], { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/"crk_" matches \d+ keys/);
    expect(r.stderr).toContain(a.id);
    expect(r.stderr).toContain(b.id);
    expect(r.stderr).toMatch(/nothing was revoked/);
    expect(deletes(before)).toEqual([]);
    expect(await keyStatus(fx.sandbox, a.key)).toBe(200);
  });

  it('an unknown id is exit 3, and a good argument beside it is not revoked either', async () => {
    const ci = fx.sandbox.addKey('ci');
    const before = fx.sandbox.requests.length;
    const r = await runCli(['keys', 'revoke', ci.id, 'key_doesnotexist', '--yes'], { env: fx.env });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/no active key has the id, prefix or name "key_doesnotexist"/);
    expect(deletes(before)).toEqual([]);
    expect(await keyStatus(fx.sandbox, ci.key)).toBe(200);
  });

  it('a key revoked already is not found (exit 3)', async () => {
    const ci = fx.sandbox.addKey('ci');
    const gone = await fetch(`${fx.sandbox.url}/api/keys/${ci.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${observer.key}` } });
    expect(gone.status).toBe(200);
    const again = await runCli(['keys', 'revoke', ci.id, '--yes'], { env: fx.env });
    expect(again.code).toBe(3);
  });

  it('off a terminal, or with --no-input, --yes is required: exit 2, nothing revoked', async () => {
    const ci = fx.sandbox.addKey('ci');
    const before = fx.sandbox.requests.length;
    const plain = await runCli(['keys', 'revoke', ci.id], { env: fx.env });
    expect(plain.code).toBe(2);
    expect(plain.stderr).toMatch(/needs confirmation/);
    expect(plain.stderr).toContain('--yes');
    const noInput = await runCli(['keys', 'revoke', ci.id, '--no-input'], { env: fx.env, tty: true });
    expect(noInput.code).toBe(2);
    expect(noInput.stdout).not.toContain('[y/N]');
    expect(deletes(before)).toEqual([]);
    expect(await keyStatus(fx.sandbox, ci.key)).toBe(200);
  });

  it('on a terminal it asks, naming the key: y revokes, anything else does not', async () => {
    const ci = fx.sandbox.addKey('ci');
    const no = await runCli(['keys', 'revoke', ci.id], { env: fx.env, tty: true, input: 'n\n' });
    expect(no.code).toBe(2);
    expect(no.stdout).toContain(`Revoke key "ci" (${ci.id}, ${ci.keyPrefix})?`);
    expect(await keyStatus(fx.sandbox, ci.key)).toBe(200);
    const yes = await runCli(['keys', 'revoke', ci.id], { env: fx.env, tty: true, input: 'y\n' });
    expect(yes.code).toBe(0);
    expect(yes.stdout).toContain('Revoked key "ci"');
    expect(await keyStatus(fx.sandbox, ci.key)).toBe(401);
  });

  it('the key in use needs --force, pointing to keys rotate', async () => {
    const mine = fx.sandbox.addKey('mine');
    const env = { ...fx.env, CRAWL_API_KEY: mine.key };
    const before = fx.sandbox.requests.length;
    const refused = await runCli(['keys', 'revoke', mine.id, '--yes'], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/is the key in use/);
    expect(refused.stderr).toContain('crawl keys rotate');
    expect(deletes(before)).toEqual([]);
    const forced = await runCli(['keys', 'revoke', mine.id, '--yes', '--force'], { env });
    expect(forced.code).toBe(0);
    expect(forced.stderr).toMatch(/the key in use was revoked/);
    expect(fullKeysIn(refused.stderr + forced.stderr)).toEqual([]);
    expect(await keyStatus(fx.sandbox, mine.key)).toBe(401);
  });

  it('several keys: the key in use goes last, each is reported, --json gives an array of bodies', async () => {
    const a = fx.sandbox.addKey('a');
    const mine = fx.sandbox.addKey('mine');
    const before = fx.sandbox.requests.length;
    const r = await runCli(['keys', 'revoke', mine.id, a.id, '--yes', '--force', '--json'], { env: { ...fx.env, CRAWL_API_KEY: mine.key } });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      { success: true, id: a.id, revoked: true },
      { success: true, id: mine.id, revoked: true },
    ]);
    expect(deletes(before)).toEqual([`DELETE /api/keys/${a.id}`, `DELETE /api/keys/${mine.id}`]);
  });

  it('several keys, one failing: the others are revoked, each reported, the exit code the worst one', async () => {
    const a = fx.sandbox.addKey('a');
    const b = fx.sandbox.addKey('b');
    fx.sandbox.inject({ method: 'DELETE', path: `/api/keys/${a.id}`, kind: 'status', status: 500 });
    const r = await runCli(['keys', 'revoke', a.id, b.id, '--yes'], { env: fx.env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`crawl: cannot revoke key "a" \\(${a.id}, .*HTTP 500`));
    expect(r.stderr).toContain(`Revoked key "b" (${b.id}`);
    expect(await keyStatus(fx.sandbox, a.key)).toBe(200);
    expect(await keyStatus(fx.sandbox, b.key)).toBe(401);
  });

  it('several keys, one failing, the key in use revoked: the note that this profile needs a new key still comes', async () => {
    const a = fx.sandbox.addKey('a');
    const mine = fx.sandbox.addKey('mine');
    fx.sandbox.inject({ method: 'DELETE', path: `/api/keys/${a.id}`, kind: 'status', status: 500 });
    const r = await runCli(['keys', 'revoke', a.id, mine.id, '--yes', '--force'], { env: { ...fx.env, CRAWL_API_KEY: mine.key } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/the key in use was revoked/);
    expect(await keyStatus(fx.sandbox, mine.key)).toBe(401);
  });

  it('never retries the DELETE', async () => {
    const ci = fx.sandbox.addKey('ci');
    fx.sandbox.inject({ method: 'DELETE', path: `/api/keys/${ci.id}`, kind: 'status', status: 503, times: 1 });
    const before = fx.sandbox.requests.length;
    const r = await runCli(['keys', 'revoke', ci.id, '--yes', '--json'], { env: fx.env });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toMatchObject({ error: { httpStatus: 503, exitCode: 1 } });
    expect(deletes(before)).toEqual([`DELETE /api/keys/${ci.id}`]);
  });

  it('a full key pasted as an argument is refused (exit 2) and never echoed back, even with --verbose', async () => {
    const ci = fx.sandbox.addKey('ci');
    const r = await runCli(['keys', 'revoke', ci.key, '--yes', '--verbose'], { env: fx.env });
    expect(r.code).toBe(2);
    expect(fullKeysIn(r.stdout + r.stderr)).toEqual([]);
    expect(await keyStatus(fx.sandbox, ci.key)).toBe(200);
  });
});


import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { crawl, runCli } from '../../support/harness.js';
import { activeKeys, calls, configProfile, fullKeysIn, keyStatus } from '../../support/keys.js';
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

describe('by name', () => {
  // `keys revoke` by a key's exact name: when exactly one key answers to it; several keys
  // of that name, or a name that is also another key's prefix, are refused naming them, and nothing
  // is revoked. In this process, against the sandbox.
  let fx: SandboxFixture;
  beforeAll(async () => {
    fx = await sandboxFixture({ seed: false });
  });
  afterAll(() => fx.close());

  const deletes = (from: number): string[] => calls(fx.sandbox, from).filter((c) => c.startsWith('DELETE'));

  describe('crawl keys revoke <name>', () => {
    it('a unique name revokes that key', async () => {
      const deploy = fx.sandbox.addKey('deploy nightly');
      const r = await crawl(['keys', 'revoke', 'deploy nightly', '--yes'], { env: fx.env });
      expect(r.code).toBe(0);
      expect(r.stderr).toContain(`Revoked key "deploy nightly" (${deploy.id}, ${deploy.keyPrefix})`);
      expect(await keyStatus(fx.sandbox, deploy.key)).toBe(401);
    });

    it('a name two keys share: exit 2, both named, nothing revoked', async () => {
      const one = fx.sandbox.addKey('ci');
      const two = fx.sandbox.addKey('ci');
      const mark = fx.sandbox.requests.length;
      const r = await crawl(['keys', 'revoke', 'ci', '--yes'], { env: fx.env });
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        `crawl: "ci" is the name of 2 keys: "ci" (${one.id}, ${one.keyPrefix}), "ci" (${two.id}, ${two.keyPrefix}): nothing was revoked\n` +
          'hint: give the id, or more of the prefix\n',
      );
      expect(deletes(mark)).toEqual([]);
      expect(await keyStatus(fx.sandbox, one.key)).toBe(200);
    });

    it("a name that is also another key's prefix is ambiguous, not a guess; an id wins over a name", async () => {
      const target = fx.sandbox.addKey('temp');
      const named = fx.sandbox.addKey(target.keyPrefix.slice(0, 8));
      const byId = fx.sandbox.addKey('x');
      const decoy = fx.sandbox.addKey(byId.id);
      const mark = fx.sandbox.requests.length;
      const ambiguous = await crawl(['keys', 'revoke', named.name, '--yes'], { env: fx.env });
      expect(ambiguous.code).toBe(2);
      expect(ambiguous.stderr).toMatch(new RegExp(`^crawl: "${named.name}" matches 2 keys: .*${target.id}.*${named.id}|^crawl: "${named.name}" matches 2 keys: .*${named.id}.*${target.id}`));
      expect(deletes(mark)).toEqual([]);
      const exact = await crawl(['keys', 'revoke', byId.id, '--yes'], { env: fx.env });
      expect(exact.code).toBe(0);
      expect(await keyStatus(fx.sandbox, byId.key)).toBe(401);
      expect(await keyStatus(fx.sandbox, decoy.key)).toBe(200);
    });

    it('a name no key has: exit 3', async () => {
      const r = await crawl(['keys', 'revoke', 'nobody has this name', '--yes'], { env: fx.env });
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(/^crawl: no active key has the id, prefix or name "nobody has this name": nothing was revoked\n/);
    });
  });
});

describe('a full key', () => {
  // `crawl keys revoke <a full key>`: keys never belong on the command line (shell history, process
  // lists). Whatever its shape, it is refused with exit 2, never echoed (plain, --json, --verbose),
  // nothing is revoked, and when it can be told without the list, no request is made at all.
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
});

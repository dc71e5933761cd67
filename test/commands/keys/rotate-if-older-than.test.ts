// `keys rotate --if-older-than <duration>` (src/commands/keys/lib/rotate-due.ts): a scheduled job
// rotates the key in use only once the service lists it as created longer ago than that;
// otherwise it says on one line that the key is not due and how old it is, changes nothing and
// exits 0. The same with every place the key lives or goes (the config file, a secret manager's
// commands, --to-command, --output-file, --keep-old); a creation time that cannot be read is an
// error, never a guess. In this process, against the sandbox, on a fake clock.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { fakeClock } from '../../support/fake-clock.js';
import { crawl } from '../../support/harness.js';
import { calls, configProfile, fullKeysIn, keyStatus, storedKey } from '../../support/keys.js';
import { sandboxSuite, type SandboxFixture } from '../../support/sandbox.js';

const NOW = Date.parse('2026-11-27T03:30:00Z');
const DAY = 86_400_000;
const daysAgo = (n: number): string => new Date(NOW - n * DAY).toISOString();

const suite = sandboxSuite({ seed: false });
let fx: SandboxFixture;
beforeAll(() => {
  fx = suite.fx;
});

let folders = 0;
/** A folder of its own for each run's config and files. */
function folder(): string {
  const dir = join(suite.dir, String(++folders));
  mkdirSync(dir);
  return dir;
}

/** `keys rotate --yes --if-older-than <d> ...` on the fake clock at NOW. */
function rotate(ifOlderThan: string, flags: string[], env: Record<string, string | undefined>) {
  return crawl(['keys', 'rotate', '--yes', '--if-older-than', ifOlderThan, ...flags], { env, clock: fakeClock(NOW) });
}

/** The key in CRAWL_API_KEY, as in CI, with a config folder of its own. */
function ciEnv(key: string): Record<string, string | undefined> {
  return { CRAWL_BASE_URL: fx.sandbox.url, CRAWL_API_KEY: key, CRAWL_CONFIG_DIR: folder() };
}

describe('keys rotate --if-older-than', () => {
  it('not due: one line with the age and the creation time, exit 0, nothing sent but the list, the old key untouched', async () => {
    const key = fx.sandbox.addKey('ci-young', { createdAt: daysAgo(12) });
    const dir = folder();
    const before = fx.sandbox.requests.length;
    const r = await rotate('30d', ['--output-file', join(dir, 'new.key')], ciEnv(key.key));
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`Not due: the key in use "ci-young" (${key.id}, ${key.keyPrefix}) is 12 days old (created ${daysAgo(12).replace('.000Z', 'Z')}), not older than 30d; nothing was changed.\n`);
    expect(calls(fx.sandbox, before)).toEqual(['GET /api/keys']);
    expect(await keyStatus(fx.sandbox, key.key)).toBe(200);
  });

  it('not due: a creation time ahead of this machine\'s clock is said as such, not as an age', async () => {
    const key = fx.sandbox.addKey('ci-ahead', { createdAt: new Date(NOW + 3_600_000).toISOString() });
    const r = await rotate('1d', ['--output-file', join(folder(), 'k')], ciEnv(key.key));
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^Not due: the key in use "ci-ahead" .* is newer than this machine's clock \(created 2026-11-27T04:30:00Z\), not older than 1d; nothing was changed\.\n$/);
  });

  it('not due, --json: {"rotated": false, "reason": "not-due"} with the message and the key, on stdout alone', async () => {
    const key = fx.sandbox.addKey('ci-json', { createdAt: daysAgo(3) });
    const r = await rotate('1w', ['--json', '--to-command', 'cat > /dev/null', '--keep-old'], ciEnv(key.key));
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({
      rotated: false,
      reason: 'not-due',
      message: expect.stringMatching(/^Not due: the key in use "ci-json" .* is 3 days old .*, not older than 1w; nothing was changed\.$/),
      old: { id: key.id, name: 'ci-json', prefix: key.keyPrefix, createdAt: daysAgo(3) },
    });
  });

  it('due: rotated as without the flag, wherever the new key goes; --json says "rotated": true', async () => {
    // --output-file: a new file.
    const aged = fx.sandbox.addKey('ci-file', { createdAt: daysAgo(31) });
    const out = join(folder(), 'new.key');
    const file = await rotate('30d', ['--output-file', out, '--json'], ciEnv(aged.key));
    expect(file.code, file.stderr).toBe(0);
    expect(JSON.parse(file.stdout)).toMatchObject({ rotated: true, steps: { create: true, verify: true, store: true, revoke: true }, storedIn: out });
    expect(await keyStatus(fx.sandbox, readFileSync(out, 'utf8').trim())).toBe(200);
    expect(await keyStatus(fx.sandbox, aged.key)).toBe(401);

    // --to-command, --keep-old: the store gets the new key, the old one stays active.
    const kept = fx.sandbox.addKey('ci-window', { createdAt: daysAgo(200) });
    const store = join(folder(), 'stored');
    const window = await rotate('6mo', ['--keep-old', '--to-command', `cat > '${store}'`], ciEnv(kept.key));
    expect(window.code, window.stderr).toBe(0);
    expect(window.stderr).toContain('Left the old key "ci-window"');
    expect(await keyStatus(fx.sandbox, readFileSync(store, 'utf8').trim())).toBe(200);
    expect(await keyStatus(fx.sandbox, kept.key)).toBe(200);

    // --output-file -: the key alone on stdout.
    const printed = fx.sandbox.addKey('ci-stdout', { createdAt: daysAgo(400) });
    const out2 = await rotate('1y', ['--output-file', '-'], ciEnv(printed.key));
    expect(out2.code, out2.stderr).toBe(0);
    expect(fullKeysIn(out2.stdout)).toHaveLength(1);
    expect(await keyStatus(fx.sandbox, out2.stdout.trim())).toBe(200);
  });

  it('a key kept in the config file, and one behind a secret manager\'s commands: rotated there when due, untouched when not', async () => {
    const young = fx.sandbox.addKey('laptop', { createdAt: daysAgo(1) });
    const profile = configProfile(fx.sandbox, young.key);
    try {
      const notYet = await rotate('2d', [], profile.env);
      expect(notYet.code).toBe(0);
      expect(notYet.stderr).toMatch(/^Not due: the key in use "laptop" .* is 1 day old /);
      expect(storedKey(profile.file)).toBe(young.key);
      const due = await rotate('12h', [], profile.env);
      expect(due.code, due.stderr).toBe(0);
      expect(storedKey(profile.file)).not.toBe(young.key);
      expect(await keyStatus(fx.sandbox, storedKey(profile.file))).toBe(200);
      expect(await keyStatus(fx.sandbox, young.key)).toBe(401);
    } finally {
      profile.cleanup();
    }

    // key-command prints the key, key-store-command stores the new one: a file, as a secret manager would.
    const vaulted = fx.sandbox.addKey('vaulted', { createdAt: daysAgo(90) });
    const dir = folder();
    const secret = join(dir, 'secret');
    writeFileSync(secret, `${vaulted.key}\n`);
    const config = join(dir, 'config');
    mkdirSync(config, { mode: 0o700 });
    writeFileSync(
      join(config, 'config.json'),
      JSON.stringify({ profiles: { default: { 'base-url': fx.sandbox.url, 'key-command': `cat '${secret}'`, 'key-store-command': `cat > '${secret}'` } } }),
      { mode: 0o600 },
    );
    const env = { CRAWL_CONFIG_DIR: config, CRAWL_API_KEY: undefined, CRAWL_BASE_URL: undefined };
    const notDue = await rotate('1y', [], env);
    expect(notDue.code).toBe(0);
    expect(notDue.stderr).toMatch(/^Not due: the key in use "vaulted" .* is 3 months old /);
    expect(readFileSync(secret, 'utf8').trim()).toBe(vaulted.key);
    const due = await rotate('2mo', [], env);
    expect(due.code, due.stderr).toBe(0);
    const fresh = readFileSync(secret, 'utf8').trim();
    expect(fresh).not.toBe(vaulted.key);
    expect(await keyStatus(fx.sandbox, fresh)).toBe(200);
    expect(await keyStatus(fx.sandbox, vaulted.key)).toBe(401);
  });

  it('months on the calendar: a key made 6 months ago less a day is not due for 6mo, one made a day more is', async () => {
    const young = fx.sandbox.addKey('young', { createdAt: '2026-05-28T03:30:00Z' });
    const old = fx.sandbox.addKey('old', { createdAt: '2026-05-26T03:30:00Z' });
    const a = await rotate('6mo', ['--json', '--output-file', join(folder(), 'k')], ciEnv(young.key));
    expect(JSON.parse(a.stdout)).toMatchObject({ rotated: false, reason: 'not-due' });
    const b = await rotate('6mo', ['--json', '--output-file', join(folder(), 'k')], ciEnv(old.key));
    expect(JSON.parse(b.stdout)).toMatchObject({ rotated: true });
  });

  it.each([
    ['missing', undefined, 'missing'],
    ['empty', '', '""'],
    ['not a time', 'soon', '"soon"'],
  ] as const)('a createdAt %s: the age cannot be known, so exit 1, said, and nothing changed', async (_what, createdAt, shown) => {
    const key = fx.sandbox.addKey('no-birthday', { createdAt: createdAt ?? 'x' });
    // The sandbox always lists a createdAt: one missing is a key listed without the field.
    if (createdAt === undefined) fx.sandbox.inject({ method: 'GET', path: '/api/keys', kind: 'status', status: 200, body: JSON.stringify({ success: true, keys: [{ id: key.id, name: 'no-birthday', keyPrefix: key.keyPrefix, lastUsedAt: null }] }), times: 1 });
    const before = fx.sandbox.requests.length;
    const r = await rotate('30d', ['--output-file', join(folder(), 'k')], ciEnv(key.key));
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `crawl: the service lists the key in use "no-birthday" (${key.id}, ${key.keyPrefix}) without a creation time that can be read (createdAt: ${shown}): whether it is older than 30d is not known, so nothing was changed\n` +
        'hint: to rotate it whatever its age, run `crawl keys rotate` without --if-older-than\n',
    );
    expect(calls(fx.sandbox, before)).toEqual(['GET /api/keys']);
    expect(await keyStatus(fx.sandbox, key.key)).toBe(200);
  });

  it.each([
    [['--if-older-than', '0d'], 'crawl: invalid --if-older-than "0d": a duration of 0 would rotate the key whatever its age: to do that, leave --if-older-than out\n'],
    [['--if-older-than', '1m'], 'crawl: ambiguous --if-older-than "1m": m could be minutes or months\n'],
    [['--if-older-than', 'monthly'], 'crawl: invalid --if-older-than "monthly": give a duration such as 30d'],
    // The flags are checked before the key's age: a scheduled job whose flags are wrong fails on its first run.
    [['--if-older-than', '100y'], 'crawl: the key in use comes from CRAWL_API_KEY, which crawl cannot change: say where the new key goes\n'],
  ])('%j: a usage error (exit 2) before anything is sent', async (flags, says) => {
    const key = fx.sandbox.addKey('usage', { createdAt: daysAgo(1) });
    const before = fx.sandbox.requests.length;
    const r = await crawl(['keys', 'rotate', '--yes', ...flags], { env: ciEnv(key.key), clock: fakeClock(NOW) });
    expect(r.code).toBe(2);
    expect(r.stderr.startsWith(says)).toBe(true);
    expect(fx.sandbox.requests.length).toBe(before);
  });

  it('its help says what it does, with an example', async () => {
    const r = await crawl(['keys', 'rotate', '--help'], { env: {} });
    expect(r.stdout).toMatch(/--if-older-than <duration> +rotate only a key in use created longer ago than/);
    expect(r.stdout.replace(/ \\\n +/g, ' ')).toContain("$ crawl keys rotate --yes --if-older-than 30d --to-command 'gh secret set CRAWL_API_KEY'");
  });
});

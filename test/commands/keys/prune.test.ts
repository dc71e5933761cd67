// `keys prune`: revokes keys by how long they went unused (--unused-for), never used (--never-used),
// limited by a name pattern (--name-glob); --dry-run only lists; off a terminal it needs --yes.
// Never the key in use; keys whose times cannot be read are kept and reported. In this process,
// against the sandbox with keys given their times.
import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../../src/text/duration.js';
import { globMatcher } from '../../../src/text/glob.js';
import { keyStatus } from '../../support/keys.js';
import { sandboxFixture } from '../../support/sandbox.js';
import { crawl } from '../../support/harness.js';

const DAY = 86_400_000;
const ago = (days: number): string => new Date(Date.now() - days * DAY).toISOString();

/** A sandbox whose bootstrap key is in use, and keys of every kind a prune must tell apart. */
async function keyring() {
  const fx = await sandboxFixture({ seed: false });
  const keys = {
    ciOld: fx.sandbox.addKey('ci-2026-01', { createdAt: ago(90), lastUsedAt: ago(60) }),
    ciRecent: fx.sandbox.addKey('ci-2026-11', { createdAt: ago(40), lastUsedAt: ago(2) }),
    ciNever: fx.sandbox.addKey('ci-never', { createdAt: ago(45), lastUsedAt: null }),
    ciNeverYoung: fx.sandbox.addKey('ci-fresh', { createdAt: ago(1), lastUsedAt: null }),
    laptop: fx.sandbox.addKey('laptop', { createdAt: ago(200), lastUsedAt: ago(100) }),
    ciOdd: fx.sandbox.addKey('ci-odd', { createdAt: ago(90), lastUsedAt: 'last Tuesday' }),
    ciNoCreated: fx.sandbox.addKey('ci-nocreated', { createdAt: 'soon', lastUsedAt: '' }),
  };
  return { fx, keys };
}

describe('keys prune', () => {
  it('--unused-for 30d --name-glob "ci-*" --yes: revokes exactly the matching idle keys; the odd ones kept and named', async () => {
    const { fx, keys } = await keyring();
    try {
      const r = await crawl(['keys', 'prune', '--unused-for', '30d', '--name-glob', 'ci-*', '--yes'], { env: fx.env });
      expect(r.code).toBe(0);
      const status = async (k: { key: string }): Promise<number> => keyStatus(fx.sandbox, k.key);
      expect(await status(keys.ciOld)).toBe(401);
      expect(await status(keys.ciNever)).toBe(401);
      expect(await status(keys.ciRecent)).toBe(200);
      expect(await status(keys.ciNeverYoung)).toBe(200);
      expect(await status(keys.laptop)).toBe(200);
      expect(await status(keys.ciOdd)).toBe(200);
      expect(await status(keys.ciNoCreated)).toBe(200);
      expect(r.stderr).toContain(`note: kept "ci-odd" (${keys.ciOdd.id}`);
      expect(r.stderr).toContain('its lastUsedAt cannot be read ("last Tuesday")');
      expect(r.stderr).toContain('its createdAt cannot be read ("soon")');
      expect(r.stderr).toContain('2 of 2 keys revoked.\n');
      expect(r.stdout).toBe('');
    } finally {
      await fx.close();
    }
  });

  it('--dry-run lists (rows on stdout) and revokes nothing; --json gives the document', async () => {
    const { fx, keys } = await keyring();
    try {
      const before = fx.sandbox.requests.length;
      const plain = await crawl(['keys', 'prune', '--never-used', '--dry-run'], { env: fx.env });
      expect(plain.code).toBe(0);
      const ids = plain.stdout.trim().split('\n').map((row) => row.split('\t')[0]);
      // Never used needs no createdAt: ci-nocreated ("" for lastUsedAt) is one of them.
      expect(ids.sort()).toEqual([keys.ciNever.id, keys.ciNeverYoung.id, keys.ciNoCreated.id].sort());
      expect(plain.stderr).toContain('3 keys would be revoked (--dry-run: nothing was).');
      const json = await crawl(['keys', 'prune', '--never-used', '--unused-for', '30d', '--dry-run', '--json'], { env: fx.env });
      const doc = JSON.parse(json.stdout) as { dryRun: boolean; wouldRevoke: Array<{ id: string }>; kept: Array<{ id: string; reason: string }> };
      expect(doc.dryRun).toBe(true);
      expect(doc.wouldRevoke.map((k) => k.id)).toEqual([keys.ciNever.id]);
      expect(doc.kept.map((k) => k.id)).toEqual([keys.ciOdd.id, keys.ciNoCreated.id]);
      expect(fx.sandbox.requests.slice(before).every((q) => q.method === 'GET')).toBe(true);
    } finally {
      await fx.close();
    }
  });

  it('never the key in use, even when it is idle and matches; off a terminal without --yes: exit 2, nothing revoked', async () => {
    const fx = await sandboxFixture({ seed: false });
    try {
      const inUse = fx.sandbox.addKey('ci-main', { createdAt: ago(90), lastUsedAt: ago(60) });
      const other = fx.sandbox.addKey('ci-other', { createdAt: ago(90), lastUsedAt: ago(60) });
      // Its own GET stamps lastUsedAt on the service; the list it reads was made as the request came.
      const env = { ...fx.env, CRAWL_API_KEY: inUse.key };
      const ask = await crawl(['keys', 'prune', '--unused-for', '1h'], { env });
      expect(ask.code).toBe(2);
      expect(ask.stderr).toMatch(/^crawl: pruning 1 key needs confirmation: nothing was revoked\n/);
      const r = await crawl(['keys', 'prune', '--unused-for', '30d', '--yes', '--json'], { env });
      expect(r.code).toBe(0);
      const doc = JSON.parse(r.stdout) as { revoked: Array<{ id: string }>; kept: Array<{ id: string; reason: string }> };
      expect(doc.revoked.map((k) => k.id)).toEqual([other.id]);
      expect(await keyStatus(fx.sandbox, inUse.key)).toBe(200);
    } finally {
      await fx.close();
    }
  });

  it('a revoke that fails is reported, the others still go, and the exit code says so', async () => {
    const { fx, keys } = await keyring();
    try {
      fx.sandbox.inject({ method: 'DELETE', path: `/api/keys/${keys.ciOld.id}`, kind: 'status', status: 500 });
      const r = await crawl(['keys', 'prune', '--unused-for', '30d', '--name-glob', 'ci-*', '--yes'], { env: fx.env });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`cannot revoke key "ci-2026-01" (${keys.ciOld.id}`);
      expect(r.stderr).toContain('1 of 2 keys revoked; 1 failed (above).');
      expect(await keyStatus(fx.sandbox, keys.ciNever.key)).toBe(401);
    } finally {
      await fx.close();
    }
  });

  it.each([
    [['keys', 'prune'], 'say which keys to prune: --unused-for <duration>, --never-used, or both'],
    [['keys', 'prune', '--unused-for', '30'], 'invalid --unused-for "30": give a duration such as 30d'],
    [['keys', 'prune', '--unused-for', '0d'], 'invalid --unused-for "0d"'],
    [['keys', 'prune', '--never-used', '--name-glob', 'ci-[z-a]'], 'invalid --name-glob "ci-[z-a]"'],
  ])('%j: a usage error before any request', async (argv, says) => {
    const r = await crawl(argv, { env: { CRAWL_BASE_URL: 'http://127.0.0.1:9', CRAWL_API_KEY: 'crk_' + 'x'.repeat(30) } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(says);
  });
});

describe('durations and name patterns', () => {
  it('durations: number-unit pairs, added up', () => {
    expect(parseDuration('30d')).toBe(30 * DAY);
    expect(parseDuration('1d12h')).toBe(1.5 * DAY);
    expect(parseDuration('1w')).toBe(7 * DAY);
    expect(parseDuration('90m')).toBe(5_400_000);
    for (const bad of ['', '30', 'd', '1.5d', '-1d', '1y', '0s', '1d 2h']) expect(parseDuration(bad), bad).toBeUndefined();
  });

  it('patterns match the whole name; regex characters are themselves', () => {
    const ci = globMatcher('ci-*');
    expect([ci('ci-1'), ci('ci-'), ci('xci-1'), ci('CI-1')]).toEqual([true, true, false, false]);
    expect(globMatcher('a.b?')('a.bc')).toBe(true);
    expect(globMatcher('a.b?')('axbc')).toBe(false);
    expect(globMatcher('key-[0-9]')('key-7')).toBe(true);
    expect(globMatcher('key-[!0-9]')('key-7')).toBe(false);
    expect(globMatcher('(x)+')('(x)+')).toBe(true);
  });
});

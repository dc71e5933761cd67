// `keys prune`: revokes keys by how long they went unused (--unused-for), never used (--never-used),
// limited by a name pattern (--name-glob); --dry-run only lists; off a terminal it needs --yes.
// Never the key in use; keys whose times cannot be read are kept and reported. In this process,
// against the sandbox with keys given their times.
import { describe, expect, it } from 'vitest';
import { keyStatus } from '../../support/keys.js';
import { sandboxFixture } from '../../support/sandbox.js';
import { fakeClock } from '../../support/fake-clock.js';
import { crawl } from '../../support/harness.js';

import { parseSpan } from '../../../src/text/duration.js';
import { globMatcher } from '../../../src/text/glob.js';

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

  it('nothing to prune: the message says in plain words what every key did, and for which keys', async () => {
    const { fx } = await keyring();
    try {
      const run = async (...flags: string[]): Promise<string> => {
        const r = await crawl(['keys', 'prune', ...flags], { env: fx.env, clock: fakeClock(Date.parse('2026-11-27T03:30:00Z')) });
        expect(r.code, flags.join(' ')).toBe(0);
        return r.stderr.split('\n').filter((line) => !line.startsWith('note: ')).join('\n');
      };
      // The fixture's times are relative to now; these cut-offs lie before all of them.
      expect(await run('--unused-for', '50y', '--name-glob', 'laptop')).toBe('No key to prune: every key whose name matches was used after 1976-11-27 (a key never used: created after it).\n');
      expect(await run('--never-used', '--name-glob', 'laptop')).toBe('No key to prune: every key whose name matches has been used.\n');
      expect(await run('--never-used', '--unused-for', '50y', '--name-glob', 'ci-never')).toBe('No key to prune: every key whose name matches has been used, or was created after 1976-11-27.\n');
      expect(await run('--unused-for', '50y', '--name-glob', 'ci-odd')).toBe('No key to prune: every key whose name matches, but those kept above, was used after 1976-11-27 (a key never used: created after it).\n');
      expect(await run('--never-used', '--name-glob', 'nobody-*')).toBe('No key to prune: no key has a name that matches --name-glob.\n');
      for (const flags of [['--unused-for', '50y'], ['--never-used']]) expect(await run(...flags, '--name-glob', 'laptop')).not.toMatch(/none not/);
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
    [['keys', 'prune', '--unused-for', '0d'], 'crawl: invalid --unused-for "0d": a duration of 0 would count every key as unused, even one used a moment ago\nhint: give a duration longer than 0'],
    [['keys', 'prune', '--never-used', '--name-glob', 'ci-[z-a]'], 'invalid --name-glob "ci-[z-a]"'],
  ])('%j: a usage error before any request', async (argv, says) => {
    const r = await crawl(argv, { env: { CRAWL_BASE_URL: 'http://127.0.0.1:9', CRAWL_API_KEY: 'crk_' + 'x'.repeat(30) } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(says);
  });
});

describe('durations and name patterns', () => {
  it('durations: number-unit pairs, added up (minutes are min; a bare m is ambiguous)', () => {
    expect(parseSpan('30d')).toEqual({ span: { months: 0, ms: 30 * DAY } });
    expect(parseSpan('1d12h')).toEqual({ span: { months: 0, ms: 1.5 * DAY } });
    expect(parseSpan('1w')).toEqual({ span: { months: 0, ms: 7 * DAY } });
    expect(parseSpan('90min')).toEqual({ span: { months: 0, ms: 5_400_000 } });
    expect(parseSpan('90m')).toEqual({ problem: 'ambiguous-m' });
    for (const bad of ['', '30', 'd', '1.5d', '-1d', '1d 2h']) expect(parseSpan(bad), bad).toEqual({ problem: 'invalid' });
    for (const zero of ['0s', '0d0h', '0mo']) expect(parseSpan(zero), zero).toEqual({ problem: 'zero' });
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

describe('--unused-for on the calendar', () => {
  // `keys prune --unused-for`: months and years on the calendar (mo, y), a bare `m` refused as
  // ambiguous before any request, the units in --help, and the cut-off named as a date by --dry-run,
  // --json and the confirmation. In this process, against the sandbox, on a fake clock set to a
  // known moment.
  const NOW = Date.UTC(2026, 10, 27, 3, 30);
  const DAY = 86_400_000;
  const daysBefore = (days: number): string => new Date(NOW - days * DAY).toISOString();

  async function keyring() {
    const fx = await sandboxFixture({ seed: false });
    const keys = {
      // Last used 2026-05-20: idle for more than six months.
      old: fx.sandbox.addKey('old', { createdAt: daysBefore(400), lastUsedAt: daysBefore(191) }),
      // Last used 2026-06-03: idle for less than six months, more than 170 days.
      recent: fx.sandbox.addKey('recent', { createdAt: daysBefore(400), lastUsedAt: daysBefore(177) }),
      // Idle for more than a year.
      ancient: fx.sandbox.addKey('ancient', { createdAt: daysBefore(800), lastUsedAt: daysBefore(370) }),
      // Used five minutes ago.
      fresh: fx.sandbox.addKey('fresh', { createdAt: daysBefore(10), lastUsedAt: new Date(NOW - 5 * 60_000).toISOString() }),
    };
    return { fx, keys };
  }

  const ids = (stdout: string): string[] => stdout.trim().split('\n').filter(Boolean).map((row) => row.split('\t')[0] ?? '').sort();

  describe('keys prune --unused-for: months and years', () => {
    it('6mo counts calendar months: --dry-run names the cut-off date and lists exactly the keys idle since before it', async () => {
      const { fx, keys } = await keyring();
      try {
        const r = await crawl(['keys', 'prune', '--unused-for', '6mo', '--dry-run'], { env: fx.env, clock: fakeClock(NOW) });
        expect(r.code).toBe(0);
        expect(ids(r.stdout)).toEqual([keys.old.id, keys.ancient.id].sort());
        expect(r.stderr).toContain('2 keys not used since 2026-05-27 would be revoked (--dry-run: nothing was).');
        const year = await crawl(['keys', 'prune', '--unused-for', '1y', '--dry-run', '--json'], { env: fx.env, clock: fakeClock(NOW) });
        const doc = JSON.parse(year.stdout) as { notUsedSince: string; wouldRevoke: Array<{ id: string }> };
        expect(doc.notUsedSince).toBe('2025-11-27T03:30:00.000Z');
        expect(doc.wouldRevoke.map((k) => k.id)).toEqual([keys.ancient.id]);
        // Minutes are still there, spelled min.
        const minutes = await crawl(['keys', 'prune', '--unused-for', '1min', '--dry-run'], { env: fx.env, clock: fakeClock(NOW) });
        expect(ids(minutes.stdout)).toContain(keys.fresh.id);
        expect(minutes.stderr).toContain('not used since 2026-11-27 03:29 UTC would be revoked');
      } finally {
        await fx.close();
      }
    });

    it('the confirmation names the cut-off; after yes, exactly those keys are revoked', async () => {
      const { fx, keys } = await keyring();
      try {
        const r = await crawl(['keys', 'prune', '--unused-for', '6mo'], { env: fx.env, clock: fakeClock(NOW), tty: true, input: 'y\n' });
        expect(r.code).toBe(0);
        expect(r.stderr).toContain('Revoke these 2 keys not used since 2026-05-27?');
        expect(await keyStatus(fx.sandbox, keys.old.key)).toBe(401);
        expect(await keyStatus(fx.sandbox, keys.ancient.key)).toBe(401);
        expect(await keyStatus(fx.sandbox, keys.recent.key)).toBe(200);
        expect(await keyStatus(fx.sandbox, keys.fresh.key)).toBe(200);
      } finally {
        await fx.close();
      }
    });

    it.each(['6m', '1d6m', '6M'])('a bare m (%s) is refused as ambiguous, with both spellings in the hint, before any request', async (value) => {
      const fx = await sandboxFixture({ seed: false });
      try {
        const before = fx.sandbox.requests.length;
        const r = await crawl(['keys', 'prune', '--unused-for', value, '--yes'], { env: fx.env });
        expect(r.code).toBe(2);
        const count = /(\d+)m$/i.exec(value)?.[1];
        expect(r.stderr).toBe(`crawl: ambiguous --unused-for "${value}": m could be minutes or months\nhint: write ${count}min for minutes or ${count}mo for months\n`);
        expect(fx.sandbox.requests.length).toBe(before);
      } finally {
        await fx.close();
      }
    });

    it('--help lists the units, months and years among them', async () => {
      const r = await crawl(['keys', 'prune', '--help'], { env: {} });
      const help = r.stdout.replace(/\s+/g, ' ');
      expect(help).toContain('units: s (seconds), min (minutes), h, d, w, mo (months), y (years)');
      expect(help).toContain('crawl keys prune --unused-for 6mo --dry-run');
    });
  });
});

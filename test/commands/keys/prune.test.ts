// `keys prune --unused-for`: months and years on the calendar (mo, y), a bare `m` refused as
// ambiguous before any request, the units in --help, and the cut-off named as a date by --dry-run,
// --json and the confirmation. In this process, against the sandbox, on a fake clock set to a
// known moment.
import { describe, expect, it } from 'vitest';
import { keyStatus } from '../../helpers/keys.js';
import { sandboxFixture } from '../../helpers/sandbox.js';
import { fakeClock } from '../../support/fake-clock.js';
import { crawl } from '../../support/harness.js';

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

// The config lock between concurrent writers: `crawl config set` runs racing to take over a lock
// a dead process left, and writers reaching one config file through two symlinked paths. Each time
// the file stays whole JSON with every write in, and nothing is left beside it. Here the runs share
// this process; writers in separate processes hammering one config while stale locks keep
// appearing, and a writer killed mid-write, are in test/contract/races.test.ts.
import { lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { runCli, tempDir } from '../support/cli.js';
import { deadPid } from '../support/local-faults.js';

let tmp: { dir: string; cleanup: () => void };
let n = 0;
beforeAll(() => {
  tmp = tempDir('crawl-lock-processes-');
});
afterAll(() => tmp.cleanup());

function folder(): string {
  const dir = join(tmp.dir, `cfg-${++n}`);
  mkdirSync(dir, { mode: 0o700 });
  return dir;
}

function deadLock(): string {
  return JSON.stringify({ pid: deadPid(), host: hostname(), token: `dead-${++n}` }) + '\n';
}

describe('crawl config set against a lock a dead process left', () => {
  it.concurrent.for([1, 2, 3])('four at once, each its own profile (round %i): all exit 0, every profile in, the lock gone', async (round, { expect }) => {
    const dir = folder();
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ profiles: {} }), { mode: 0o600 });
    writeFileSync(`${config}.lock`, deadLock());
    const names = ['a', 'b', 'c', 'd'].map((p) => `${p}${round}`);
    const results = await Promise.all(
      names.map((p) => runCli(['config', 'set', 'base-url', `https://${p}.example`, '--profile', p], { env: { CRAWL_CONFIG_DIR: dir } })),
    );
    for (const r of results) expect([r.code, r.stderr.startsWith('Set ')], r.stderr).toEqual([0, true]);
    const profiles = (JSON.parse(readFileSync(config, 'utf8')) as { profiles: Record<string, unknown> }).profiles;
    expect(Object.keys(profiles).sort()).toEqual(names);
    for (const p of names) expect(profiles[p]).toEqual({ 'base-url': `https://${p}.example` });
    expect(readdirSync(dir)).toEqual(['config.json']);
  });
});

describe('one config file reached through two symlinked paths', () => {
  it.concurrent.for([1, 2])('writers through either link take one lock (race %i): every profile in, the links still links', async (race, { expect }) => {
    const real = folder();
    const config = join(real, 'config.json');
    writeFileSync(config, JSON.stringify({ profiles: {} }), { mode: 0o600 });
    const [one, two] = [folder(), folder()];
    for (const d of [one, two]) symlinkSync(config, join(d, 'config.json'));
    const runs = ['a', 'b', 'c'].flatMap((p) => [
      { dir: one, profile: `${p}${race}-one` },
      { dir: two, profile: `${p}${race}-two` },
    ]);
    const results = await Promise.all(
      runs.map(({ dir, profile }) => runCli(['config', 'set', 'base-url', `https://${profile}.example`, '--profile', profile], { env: { CRAWL_CONFIG_DIR: dir } })),
    );
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const profiles = (JSON.parse(readFileSync(config, 'utf8')) as { profiles: Record<string, unknown> }).profiles;
    expect(Object.keys(profiles).sort()).toEqual(runs.map((r) => r.profile).sort());
    expect(readdirSync(real)).toEqual(['config.json']);
    for (const d of [one, two]) {
      expect(readdirSync(d)).toEqual(['config.json']);
      expect(lstatSync(join(d, 'config.json')).isSymbolicLink()).toBe(true);
    }
    expect(readFileSync(join(one, 'config.json'), 'utf8')).toBe(readFileSync(config, 'utf8'));
  });
});

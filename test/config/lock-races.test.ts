// Two crawl runs writing one config file at once: `config set` against `config set`, and
// `keys rotate` against `keys rotate`. The file is always whole JSON holding one of the results;
// no change is silently undone; and no key the service accepts is lost (every key a race created
// is in the config or was printed by the run that made it). Also the write lock's own faults.
// Here the runs share this process (their file-system calls still interleave); the same races
// between separate processes, and a writer killed (-9) mid-write, are in test/contract/races.test.ts.
import { readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { clockWatching } from '../support/fake-clock.js';
import { runCli, tempDir } from '../support/cli.js';
import { configProfile, expectNoRotatedKeyLost } from '../support/keys.js';
import { configFolderWith, deadPid, holdConfigLock } from '../support/local-faults.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';

let fx: SandboxFixture;
let tmp: { dir: string; cleanup: () => void };
beforeAll(async () => {
  fx = await sandboxFixture({ seed: false });
  tmp = tempDir('crawl-local-races-');
});
afterAll(async () => {
  tmp.cleanup();
  await fx.close();
});

const freshFolder = (doc?: unknown): { dir: string; file: string } => configFolderWith(tmp.dir, doc);

describe('config set against config set', () => {
  // Four folders race at once, five rounds each: twenty races, in the time of five.
  it.concurrent.for([1, 2, 3, 4])('the same setting, five rounds (lane %i): always whole JSON holding one of the two values, nothing left behind', async (lane, { expect }) => {
    const { dir, file } = freshFolder({ profiles: { default: { 'base-url': 'https://start.example/' } } });
    const env = { CRAWL_CONFIG_DIR: dir };
    for (let round = 0; round < 5; round++) {
      const [a, b] = await Promise.all([
        runCli(['config', 'set', 'base-url', `https://a${lane}-${round}.example`], { env }),
        runCli(['config', 'set', 'base-url', `https://b${lane}-${round}.example`], { env }),
      ]);
      expect([a.code, b.code, a.stderr.startsWith('Set '), b.stderr.startsWith('Set ')]).toEqual([0, 0, true, true]);
      const value = JSON.parse(readFileSync(file, 'utf8')).profiles.default['base-url'];
      expect([`https://a${lane}-${round}.example`, `https://b${lane}-${round}.example`]).toContain(value);
      // No temp file or lock left in the folder.
      expect(readdirSync(dir)).toEqual(['config.json']);
    }
  });

  it.concurrent('different profiles at once: neither change is lost', async ({ expect }) => {
    const { dir, file } = freshFolder();
    const env = { CRAWL_CONFIG_DIR: dir };
    for (let round = 0; round < 3; round++) {
      await Promise.all(
        ['a', 'b', 'c'].map((p) => runCli(['config', 'set', 'base-url', `https://${p}${round}.example`, '--profile', `${p}${round}`], { env })),
      );
    }
    const profiles = JSON.parse(readFileSync(file, 'utf8')).profiles as Record<string, unknown>;
    expect(Object.keys(profiles)).toHaveLength(9);
    expect(profiles.b2).toEqual({ 'base-url': 'https://b2.example' });
  });
});

describe('keys rotate against keys rotate', () => {
  it.concurrent.for([1, 2, 3])('no key the service accepts is lost, and the config holds one that works (race %i)', async (race, { expect }) => {
    const old = fx.sandbox.addKey(`raced-${race}`);
    const profile = configProfile(fx.sandbox, old.key);
    try {
      const env = { ...fx.env, ...profile.env };
      const results = await Promise.all([runCli(['keys', 'rotate', '--yes'], { env }), runCli(['keys', 'rotate', '--yes'], { env })]);
      await expectNoRotatedKeyLost(expect, fx.sandbox, profile.file, `raced-${race}`, results);
    } finally {
      profile.cleanup();
    }
  });
});

describe('the write lock', () => {
  it.concurrent('left by a process that died mid-write: taken over at once', async ({ expect }) => {
    const { dir, file } = freshFolder();
    writeFileSync(`${file}.lock`, JSON.stringify({ pid: deadPid(), host: hostname(), token: 'dead' }));
    const r = await runCli(['config', 'set', 'base-url', 'https://after-crash.example'], { env: { CRAWL_CONFIG_DIR: dir } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('waiting');
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles.default['base-url']).toBe('https://after-crash.example');
    expect(readdirSync(dir)).toEqual(['config.json']);
  });

  it.concurrent('left empty by a process killed as it created it: taken over once it is clearly abandoned', async ({ expect }) => {
    const { dir, file } = freshFolder();
    writeFileSync(`${file}.lock`, '');
    const past = new Date(Date.now() - 5000);
    utimesSync(`${file}.lock`, past, past);
    const r = await runCli(['config', 'set', 'base-url', 'https://after-kill.example'], { env: { CRAWL_CONFIG_DIR: dir } });
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(dir)).toEqual(['config.json']);
  });

  it.concurrent('held by a live process: the writer says it waits, then writes once it is free', async ({ expect }) => {
    const { dir, file } = freshFolder();
    const release = holdConfigLock(file);
    try {
      let out: { stderr: () => string } | undefined;
      // Freed as the writer starts its next poll after saying it waits.
      const clock = clockWatching(() => {
        if (out?.stderr().includes('waiting for another crawl process')) release();
      });
      const r = await runCli(['config', 'set', 'base-url', 'https://patient.example'], {
        env: { CRAWL_CONFIG_DIR: dir },
        clock,
        onSpawn: (_child, output) => (out = output),
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(new RegExp(`^crawl: waiting for another crawl process \\(pid ${process.pid}\\) to finish writing ${file}\\n`));
      expect(JSON.parse(readFileSync(file, 'utf8')).profiles.default['base-url']).toBe('https://patient.example');
    } finally {
      release();
    }
  });

  it.concurrent('never released by a live process: exit 1 in bounded time, naming the lock; nothing changed', async ({ expect }) => {
    const { dir, file } = freshFolder({ profiles: { default: { 'base-url': 'https://kept.example/' } } });
    const before = readFileSync(file);
    const release = holdConfigLock(file);
    try {
      const r = await runCli(['config', 'set', 'base-url', 'https://never.example'], { env: { CRAWL_CONFIG_DIR: dir } });
      expect(r.code).toBe(1);
      // Bounded: it polled every 20 ms and gave up once 5 s (of the clock) had passed.
      expect(new Set(r.clock?.sleeps)).toEqual(new Set([20]));
      expect(r.clock?.elapsed()).toBeGreaterThanOrEqual(5000);
      expect(r.clock?.elapsed()).toBeLessThanOrEqual(5020);
      expect(r.stderr.split('\n').slice(-3)).toEqual([
        `crawl: the config file ${file} is being written by another crawl process (pid ${process.pid}); nothing was changed`,
        `hint: try again; if no crawl is running, remove ${file}.lock`,
        '',
      ]);
      expect(readFileSync(file).equals(before)).toBe(true);
    } finally {
      release();
    }
  });
});

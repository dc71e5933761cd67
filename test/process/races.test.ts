// Contract (spawned): crawl processes racing on one config file, each with its own pid, so the
// config lock is taken and judged between processes as in real use: `config set` against
// `config set`, `keys rotate` against `keys rotate`, writers taking over from one killed (-9) in
// the middle of its write, and writers hammering the lock while stale locks keep appearing. The
// file is always whole JSON holding one of the results, no change is silently undone, no key the
// service accepts is lost. The same races between runs in this process (many more rounds, no
// process each) are in test/config/lock.test.ts.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { runCli, tempDir, waitFor } from '../support/harness.js';
import { ROOT } from '../support/spawn.js';
import { configProfile, expectNoRotatedKeyLost } from '../support/keys.js';
import { configFolderWith, deadPid } from '../support/local-faults.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';

const WORKER = join(ROOT, 'test', 'support', 'lock-worker.mjs');
const LOCK_MODULE = join(ROOT, 'dist', 'config', 'lock.js');

let fx: SandboxFixture;
let tmp: { dir: string; cleanup: () => void };
beforeAll(async () => {
  fx = await sandboxFixture({ seed: false });
  tmp = tempDir('crawl-contract-races-');
});
afterAll(async () => {
  tmp.cleanup();
  await fx.close();
});

const freshFolder = (doc?: unknown): { dir: string; file: string } => configFolderWith(tmp.dir, doc);

/** `crawl config set base-url <url> [--profile <p>]` as a process of its own. */
const setUrl = (dir: string, url: string, profile?: string) =>
  runCli(['config', 'set', 'base-url', url, ...(profile === undefined ? [] : ['--profile', profile])], { process: true, env: { CRAWL_CONFIG_DIR: dir } });

function startWorker(config: string, id: string, rounds: number, dead: number, mode?: string) {
  const child = spawn(process.execPath, [WORKER, LOCK_MODULE, config, id, String(rounds), String(dead), ...(mode ? [mode] : [])], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, stdout: () => stdout, done };
}

describe('config set against config set', () => {
  it.concurrent('the same setting from two processes and another profile from a third, two rounds: whole JSON, one of the two values, no change lost, nothing left behind', async ({ expect }) => {
    const { dir, file } = freshFolder({ profiles: { default: { 'base-url': 'https://start.example/' } } });
    for (let round = 0; round < 2; round++) {
      const [a, b, c] = await Promise.all([
        setUrl(dir, `https://a-${round}.example`),
        setUrl(dir, `https://b-${round}.example`),
        setUrl(dir, `https://c-${round}.example`, `c${round}`),
      ]);
      for (const r of [a, b, c]) expect([r.code, r.stderr.startsWith('Set ')], r.stderr).toEqual([0, true]);
      const profiles = JSON.parse(readFileSync(file, 'utf8')).profiles;
      expect([`https://a-${round}.example`, `https://b-${round}.example`]).toContain(profiles.default['base-url']);
      expect(profiles[`c${round}`]).toEqual({ 'base-url': `https://c-${round}.example` });
      // No temp file or lock left in the folder.
      expect(readdirSync(dir)).toEqual(['config.json']);
    }
    expect(Object.keys(JSON.parse(readFileSync(file, 'utf8')).profiles).sort()).toEqual(['c0', 'c1', 'default']);
  });
});

describe('keys rotate against keys rotate', () => {
  it.concurrent('no key the service accepts is lost, and the config holds one that works', async ({ expect }) => {
    const old = fx.sandbox.addKey('raced');
    const profile = configProfile(fx.sandbox, old.key);
    try {
      const env = { ...fx.env, ...profile.env };
      const results = await Promise.all([runCli(['keys', 'rotate', '--yes'], { process: true, env }), runCli(['keys', 'rotate', '--yes'], { process: true, env })]);
      await expectNoRotatedKeyLost(expect, fx.sandbox, profile.file, 'raced', results);
    } finally {
      profile.cleanup();
    }
  });
});

describe('a writer killed (-9) in the middle of its write', () => {
  it.concurrent('the lock it left is taken over at once by three config set racing for it: all exit 0, every profile in, the file whole, the lock gone', async ({ expect }) => {
    const { dir, file } = freshFolder({ profiles: { default: { 'base-url': 'https://before.example/' } }, writes: [] });
    const before = readFileSync(file, 'utf8');
    // A writer of the config lock (dist/config/lock.js, as crawl takes it) stops with the lock
    // held and half its new file written, and is killed there: what a crash mid-write leaves.
    const writer = startWorker(file, 'killed', 1, deadPid(), 'stop-mid-write');
    await waitFor(() => writer.stdout() === 'mid-write\n', 10_000, 'the writer inside its write');
    writer.child.kill('SIGKILL');
    expect((await writer.done).signal).toBe('SIGKILL');
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(JSON.parse(readFileSync(`${file}.lock`, 'utf8'))).toMatchObject({ pid: writer.child.pid, host: hostname() });

    const names = ['a', 'b', 'c'];
    const results = await Promise.all(names.map((p) => setUrl(dir, `https://${p}.example`, p)));
    for (const r of results) {
      expect([r.code, r.stderr.startsWith('Set ')], r.stderr).toEqual([0, true]);
      // Its holder is gone: nobody waits for it.
      expect(r.stderr).not.toContain('waiting');
    }
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    expect(doc.writes).toEqual([]);
    expect(doc.profiles).toEqual({
      default: { 'base-url': 'https://before.example/' },
      a: { 'base-url': 'https://a.example' },
      b: { 'base-url': 'https://b.example' },
      c: { 'base-url': 'https://c.example' },
    });
    // The lock is gone; only the dead writer's half-written temp file stays (no one else's to remove).
    expect(readdirSync(dir).sort()).toEqual(['config.json', 'config.json.killed.tmp']);
  });
});

describe('writers in separate processes, stale locks appearing all along', () => {
  it.concurrent('six writers, twelve rounds each, one in three left as a dead process\'s lock: never two inside, every write in', async ({ expect }) => {
    const { dir, file: config } = freshFolder({ writes: [] });
    // A stale lock is there from the start: every writer begins by racing to take it over.
    writeFileSync(`${config}.lock`, JSON.stringify({ pid: deadPid(), host: hostname(), token: 'dead-at-start' }) + '\n');
    const dead = deadPid();
    const ids = ['w1', 'w2', 'w3', 'w4', 'w5', 'w6'];
    const rounds = 12;
    const results = await Promise.all(ids.map((id) => startWorker(config, id, rounds, dead).done));
    for (const r of results) expect([r.code, r.stderr]).toEqual([0, '']);
    const reports = results.map((r) => JSON.parse(r.stdout) as { id: string; overlaps: number; retries: number });
    expect(reports.map((r) => r.overlaps)).toEqual(ids.map(() => 0));
    const writes = (JSON.parse(readFileSync(config, 'utf8')) as { writes: string[] }).writes;
    expect([...writes].sort()).toEqual(ids.flatMap((id) => Array.from({ length: rounds }, (_, i) => `${id}-${i}`)).sort());
    expect(readdirSync(dir)).toEqual(['config.json']);
  });
});

// Ctrl-C (SIGINT) and SIGTERM reaching every long-running command, in this process: the interrupt
// is what the process adapter (src/main.ts) turns a signal into, an abort with InterruptedError
// (130 / 143). Each command then ends on its own, the cursor and the terminal given back, partial
// output still valid (whole JSON lines), and a key the service has made never lost.
// What only a process shows (a real signal, the forced exit, a real terminal's modes, pipes) is in
// test/process/. (job pages --output's interrupt is in test/commands/job/pages-signals.test.ts, job watch's plain Ctrl-C in
// test/commands/job/watch.test.ts, keys rotate's at the check in test/commands/keys/rotate.test.ts, keys create's with
// the POST out in keys-interrupt-mutation.)
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestStreams } from '../../src/io/test-streams.js';
import { clockWatching } from '../support/fake-clock.js';
import { cleanEnv } from '../support/spawn.js';
import { calls, configProfile, expectRotationStoppedAfterStoring } from '../support/keys.js';
import { everyLineJson, holdConfigLock } from '../support/local-faults.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';
import { crawl, interrupt, runCli, tempDir, waitFor } from '../support/harness.js';

let fx: SandboxFixture;
let tmp: { dir: string; cleanup: () => void };

beforeAll(async () => {
  fx = await sandboxFixture();
  tmp = tempDir('crawl-local-signals-');
});
afterAll(async () => {
  tmp.cleanup();
  await fx.close();
});

const HIDE = '\u001b[?25l';
const SHOW = '\u001b[?25h';
const FAST = ['--interval', '0.5'];

/** The cursor is shown again after the last time it was hidden (and it was hidden at all). */
function cursorRestored(screen: string): boolean {
  return screen.includes(HIDE) && screen.lastIndexOf(SHOW) > screen.lastIndexOf(HIDE);
}

/**
 * A job of 20,000 pages whose first batch comes at once and whose later batches never come: the
 * run can only end through the interrupt (a run that ignored it would time out, `timedOut`).
 */
function stallingJob(id: string): { secondBatch: () => boolean } {
  fx.sandbox.addJob({ id, status: 'completed', pagesTotal: 20_000 });
  fx.sandbox.inject({ path: `^/api/crawl/${id}/pages`, kind: 'hang', skip: 1 });
  const mark = fx.sandbox.requests.length;
  return { secondBatch: () => calls(fx.sandbox, mark).filter((c) => c.startsWith(`GET /api/crawl/${id}/pages`)).length >= 2 };
}

describe('job pages, interrupted midway', () => {
  // Into a file (--output): test/commands/job/pages-signals.test.ts.
  it.concurrent('stdout, not a file: SIGINT leaves only whole JSON lines on stdout', async ({ expect }) => {
    const id = 'slow-stdout';
    const job = stallingJob(id);
    const r = await runCli(['job', 'pages', id], { env: fx.env, onSpawn: (child) => void waitFor(job.secondBatch, 10_000, 'the second batch').then(() => child.kill('SIGINT')) });
    expect(r.timedOut).toBe(false);
    expect(r.code).toBe(130);
    expect(everyLineJson(r.stdout).length).toBeGreaterThan(0);
  });
});

describe('watching commands on a terminal', () => {
  const cases: Array<[string, string[], 'SIGINT' | 'SIGTERM', number]> = [
    ['job pages --wait, Ctrl-C', ['job', 'pages', 'sig-pages-int', '--wait', ...FAST], 'SIGINT', 130],
    ['job pages --wait, SIGTERM', ['job', 'pages', 'sig-pages-term', '--wait', ...FAST], 'SIGTERM', 143],
    ['job cancel --wait, Ctrl-C', ['job', 'cancel', 'sig-cancel-int', '--wait', ...FAST], 'SIGINT', 130],
    ['job cancel --wait, SIGTERM', ['job', 'cancel', 'sig-cancel-term', '--wait', ...FAST], 'SIGTERM', 143],
    ['job watch, Ctrl-C', ['job', 'watch', 'sig-watch-int', ...FAST], 'SIGINT', 130],
    ['job watch, SIGTERM', ['job', 'watch', 'sig-watch-term', ...FAST], 'SIGTERM', 143],
  ];
  it.concurrent.for(cases)('%s: exit as documented, the cursor shown again, nothing on stdout', async ([, args, signal, code], { expect }) => {
    const id = args[2] as string;
    // A job that stays running; a cancel that the service takes its time to apply.
    fx.sandbox.addJob({ id, status: 'running', pagesTotal: 100, pagesFinished: 1, cancel: { lagPolls: 1_000_000 } });
    let stop: (() => void) | undefined;
    // The interrupt comes as the command waits for its next poll, the live line drawn.
    const clock = clockWatching(() => stop?.());
    const r = await runCli(args, { env: fx.env, tty: true, clock, onSpawn: (child) => (stop = () => child.kill(signal)) });
    expect(r.code).toBe(code);
    expect(r.stdout).toContain('1/100 pages');
    expect(cursorRestored(r.stdout)).toBe(true);
    expect(r.stdout).not.toContain('"url"');
    // Stopped in its first wait: the interval it was given.
    expect(clock.sleeps).toEqual([500]);
    // Stopping the wait never cancels (or re-cancels) anything.
    const deletes = fx.sandbox.requests.filter((q) => q.method === 'DELETE' && q.url === `/api/crawl/${id}`);
    expect(deletes).toHaveLength(args[1] === 'cancel' ? 1 : 0);
  });
});

describe('auth login at the hidden prompt', () => {
  for (const [signal, code] of [['SIGTERM', 143], ['SIGINT', 130]] as const) {
    it.concurrent(`${signal}: exit ${code}, raw mode off again (echo and line mode back), nothing saved`, async ({ expect }) => {
      const dir = join(tmp.dir, `login-${signal}`);
      let streams!: TestStreams;
      const controller = new AbortController();
      const env = cleanEnv({ CRAWL_BASE_URL: fx.sandbox.url, CRAWL_CONFIG_DIR: dir });
      const run = crawl(['auth', 'login'], { env, tty: true, columns: 120, signal: controller.signal, onStreams: (s) => (streams = s) });
      await waitFor(() => streams.outputText().includes('Paste your API key'), 10_000, 'the prompt');
      streams.type('crk_half');
      interrupt(controller, signal);
      expect((await run).code).toBe(code);
      // The terminal was put in raw mode (no echo) for the key, and given back.
      expect(streams.rawModes).toEqual([true, false]);
      expect(streams.outputText()).not.toContain('crk_half');
      expect(existsSync(join(dir, 'config.json'))).toBe(false);
    });
  }
});

describe('keys rotate: a key being stored outlasts the interrupt', () => {
  it('Ctrl-C while storing waits on another writer: the wait goes on, the key is stored, exit 130', async () => {
    const old = fx.sandbox.addKey('slow-store');
    const profile = configProfile(fx.sandbox, old.key);
    // Another crawl process is writing the config: the rotation has to wait for it at step 4.
    const release = holdConfigLock(profile.file);
    try {
      let out: { stderr: () => string } | undefined;
      let stop: (() => void) | undefined;
      let interruptedAt: number | undefined;
      // Ctrl-C once the wait for the lock is announced; the lock is freed 2.5 s (of the clock)
      // later, past the 2 s a plain interrupt gets before the process ends it (src/main.ts).
      const clock = clockWatching((_ms, _n, c) => {
        if (interruptedAt === undefined && out?.stderr().includes('waiting for another crawl process')) {
          interruptedAt = c.elapsed();
          stop?.();
        } else if (interruptedAt !== undefined && c.elapsed() - interruptedAt >= 2500) release();
      });
      const r = await runCli(['keys', 'rotate', '--yes'], {
        env: { ...fx.env, ...profile.env },
        clock,
        onSpawn: (child, output) => {
          out = output;
          stop = () => child.kill('SIGINT');
        },
      });
      expect(interruptedAt).toBeDefined();
      expect(clock.elapsed() - (interruptedAt ?? 0)).toBeGreaterThanOrEqual(2500);
      await expectRotationStoppedAfterStoring(expect, fx.sandbox, profile.file, old.key, r);
    } finally {
      release();
      profile.cleanup();
    }
  });
});

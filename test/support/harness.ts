// Runs the CLI as a user would, against real HTTP on 127.0.0.1 (the sandbox or a small node:http
// server). Two ways in, one engine:
// - crawl(): in this process, runCli of src/app/run-cli.ts with streams made of memory (terminals
//   or not, any width, stdin one can type into, streams that fail) and a fake clock. No process is
//   spawned, no wall-clock time is waited: what the CLI waited is in `clock.sleeps`. Its `env` is
//   exactly what the test gives.
// - runCli(): a user's run, the same in this process (through crawl(), with cleanEnv() around the
//   test's variables and a terminal of 120 columns whose output is one stream, as a pty's) or, with
//   `process: true` (or CRAWL_TEST_MODE=spawn for every run), the built bin/crawl.js spawned
//   (test/support/spawn.ts): for what only a process shows, in test/process/.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import type { Guard } from '../../src/app/guard.js';
import { runCli as runCliInProcess } from '../../src/app/run-cli.js';
import { InterruptedError } from '../../src/errors.js';
import { testStreams, type TestStreams, type TestStreamsOptions } from '../../src/io/test-streams.js';
import { fileURLToPath } from 'node:url';
import type { Clock } from '../../src/platform/clock.js';
import type { Platform } from '../../src/platform/platform.js';
import { fakeClock, type FakeClock } from './fake-clock.js';
import { cleanEnv, spawnCli, type ProcessResult, type SpawnOptions } from './spawn.js';

export interface CrawlOptions {
  env?: Record<string, string | undefined>;
  /** Which streams are terminals (`true`: all three). */
  tty?: TestStreamsOptions['tty'];
  /** What stdin holds. */
  input?: string;
  columns?: number;
  rows?: number;
  stdoutFails?: TestStreamsOptions['stdoutFails'];
  stderrFails?: TestStreamsOptions['stderrFails'];
  /** A fake clock made for the run unless given; `realClock` runs on real time. */
  clock?: Clock;
  /** Aborting it is Ctrl-C (or SIGTERM, with `new InterruptedError(143)` as the reason). */
  signal?: AbortSignal;
  /** The run's critical sections, seen by a signalExit (src/app/signal-exit.ts) as src/main.ts sees them. */
  guard?: Guard;
  /** Called with the run's streams before it starts: to resize the terminal or type into it mid-run. */
  onStreams?: (streams: TestStreams) => void;
  /** The system the run is on: this one by default, with a home folder of the tests' own (never the user's). */
  platform?: Platform;
}

/** The home folder runs get by default: files that go into a home go here, not into the user's. */
export const TEST_HOME = fileURLToPath(new URL('../../.vitest-tmp/home', import.meta.url));

export interface CrawlResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout and stderr interleaved as written: what a terminal would show. */
  output: string;
  /** The clock the run used (a FakeClock unless one was given). */
  clock: FakeClock;
}

/** The CLI in this process, on memory streams and a fake clock. */
export async function crawl(argv: string[], options: CrawlOptions = {}): Promise<CrawlResult> {
  const streams = testStreams({
    ...(options.tty === undefined ? {} : { tty: options.tty }),
    ...(options.input === undefined ? {} : { input: options.input }),
    ...(options.columns === undefined ? {} : { columns: options.columns }),
    ...(options.rows === undefined ? {} : { rows: options.rows }),
    ...(options.stdoutFails === undefined ? {} : { stdoutFails: options.stdoutFails }),
    ...(options.stderrFails === undefined ? {} : { stderrFails: options.stderrFails }),
  });
  options.onStreams?.(streams);
  const clock = options.clock ?? fakeClock();
  const env: Record<string, string | undefined> = { ...options.env };
  const code = await runCliInProcess(argv, {
    env,
    streams,
    clock,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.guard === undefined ? {} : { guard: options.guard }),
    nodeVersion: process.versions.node,
    platform: options.platform ?? { os: process.platform, home: TEST_HOME },
  });
  return { code, stdout: streams.stdoutText(), stderr: streams.stderrText(), output: streams.outputText(), clock: clock as FakeClock };
}

/** An interrupt for `signal`: Ctrl-C (130) or SIGTERM (143). */
export function interrupt(controller: AbortController, signal: 'SIGINT' | 'SIGTERM' = 'SIGINT'): void {
  controller.abort(new InterruptedError(signal === 'SIGTERM' ? 143 : 130));
}

export interface RunOptions extends Pick<SpawnOptions, 'env' | 'input' | 'tty' | 'timeoutMs' | 'cwd' | 'onSpawn'> {
  /** Spawn the built bin/crawl.js instead of running in this process. */
  process?: boolean;
  /** In this process: the clock the run waits on (a fresh fake clock by default). */
  clock?: Clock;
  /** Another copy of bin/crawl.js (an install in a temp folder); by default this repository's. */
  bin?: string;
}

export interface RunResult extends ProcessResult {
  /** In this process: the fake clock the run waited on (what it slept, how far time moved). */
  clock?: FakeClock;
}

/** A user's run: in this process unless a process is asked for (see the top of this file). */
export function runCli(args: string[], options: RunOptions = {}): Promise<RunResult> {
  const spawned = process.env.CRAWL_TEST_MODE === 'spawn' || options.process === true || options.bin !== undefined || options.cwd !== undefined;
  return spawned ? spawnCli(args, options) : inProcess(args, options);
}

/** What a terminal (the pty of the spawned mode) is in this process: all three streams, 120 columns. */
const TERMINAL_COLUMNS = 120;

async function inProcess(args: string[], options: RunOptions): Promise<RunResult> {
  const interrupter = new AbortController();
  let timedOut = false;
  const tty = options.tty === true;
  // A hang guard, not a measure: the run is interrupted, and the test fails on `timedOut`.
  const timer = setTimeout(() => {
    timedOut = true;
    interrupt(interrupter);
  }, options.timeoutMs ?? 15_000);
  try {
    const r = await crawl(args, {
      env: cleanEnv(options.env),
      tty,
      ...(options.input === undefined ? {} : { input: options.input }),
      columns: TERMINAL_COLUMNS,
      ...(options.clock === undefined ? {} : { clock: options.clock }),
      signal: interrupter.signal,
      onStreams: (streams) =>
        // What a test would do with the child: signal it (an interrupt here), read what it wrote so far.
        options.onSpawn?.(
          {
            stdin: { write: (text: string) => (streams.type(text), true) },
            kill: (signal?: NodeJS.Signals | number) => {
              if (!interrupter.signal.aborted) interrupt(interrupter, signal === 'SIGTERM' ? 'SIGTERM' : 'SIGINT');
              return true;
            },
          } as unknown as ChildProcess,
          { stdout: () => (tty ? streams.outputText() : streams.stdoutText()), stderr: () => (tty ? '' : streams.stderrText()) },
        ),
    });
    // A terminal shows both streams as one, as the pty does.
    return { code: r.code, signal: null, stdout: tty ? r.output : r.stdout, stderr: tty ? '' : r.stderr, timedOut, clock: r.clock };
  } finally {
    clearTimeout(timer);
  }
}

/** A fresh folder, removed by the returned cleanup. */
export function tempDir(prefix = 'crawl-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Resolves when `check` returns true, polling it; rejects after `timeoutMs` (a hang guard, not a measure). */
export async function waitFor(check: () => boolean, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Parses NDJSON output, failing loudly on any line that is not JSON. */
export function ndjson(text: string): unknown[] {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
}

// Drives the CLI as a user would, against real HTTP on 127.0.0.1 with an isolated config folder.
// By default in this process: runCli with memory streams (terminals or not) and a fake clock, so a
// test waits for no wall-clock time (see test/support/harness.ts). A test that needs what only a
// process shows (signals to a pid, pipes, a real pty, file permissions as another user, races
// between processes, another copy of the bin) asks for `process: true`, and gets the built
// bin/crawl.js spawned, optionally in a real terminal (a pty from util-linux `script`).
// CRAWL_TEST_MODE=spawn runs every case as a process, to compare the two.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli as runCliInProcess } from '../../src/app/run-cli.js';
import { InterruptedError } from '../../src/errors.js';
import { testStreams } from '../../src/io/test-streams.js';
import type { Clock } from '../../src/platform/clock.js';
import { fakeClock, type FakeClock } from './fake-clock.js';

export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const BIN = join(ROOT, 'bin', 'crawl.js');

export interface RunOptions {
  /** Spawn the built bin/crawl.js instead of running in this process. */
  process?: boolean;
  /** In this process: the clock the run waits on (a fresh fake clock by default). */
  clock?: Clock;
  env?: Record<string, string | undefined>;
  /** Written to stdin, then stdin is closed. Without it stdin is closed at once. */
  input?: string;
  /** Run inside a pseudo-terminal: stdin, stdout and stderr are TTYs and arrive merged in `stdout`. */
  tty?: boolean;
  /** Kill the process if it has not ended by then (the test then fails on `timedOut`). */
  timeoutMs?: number;
  cwd?: string;
  /** Another copy of bin/crawl.js (an install in a temp folder); by default this repository's. */
  bin?: string;
  /** Called once with the child so a test can signal it when a condition shows in its output. */
  onSpawn?: (child: ChildProcess, output: { stdout: () => string; stderr: () => string }) => void;
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  ms: number;
  /** In this process: the fake clock the run waited on (what it slept, how far time moved). */
  clock?: FakeClock;
}

/** The environment every spawned CLI gets: the caller's settings only, nothing from this shell. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of ['PATH', 'HOME', 'LANG', 'TMPDIR', 'SystemRoot']) {
    if (process.env[name] !== undefined) env[name] = process.env[name];
  }
  env.TERM = 'xterm-256color';
  // Where a CLI run on a Node the build's code cache was not made for keeps its own: not the
  // user's home (src/launch/user-cache.cts).
  env.XDG_CACHE_HOME = join(ROOT, '.vitest-tmp', 'xdg-cache');
  // And the job history that completion offers (src/config/job-history.ts): not the user's either.
  env.XDG_STATE_HOME = join(ROOT, '.vitest-tmp', 'xdg-state');
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

export function runCli(args: string[], options: RunOptions = {}): Promise<RunResult> {
  const spawned = process.env.CRAWL_TEST_MODE === 'spawn' || options.process === true || options.bin !== undefined || options.cwd !== undefined;
  return spawned ? spawnCli(args, options) : inProcess(args, options);
}

/** What a terminal (the pty of the spawned mode) is in this process: all three streams, 120 columns. */
const TERMINAL_COLUMNS = 120;

async function inProcess(args: string[], options: RunOptions): Promise<RunResult> {
  const env = cleanEnv(options.env);
  const streams = testStreams({
    tty: options.tty === true,
    ...(options.input === undefined ? {} : { input: options.input }),
    columns: TERMINAL_COLUMNS,
  });
  const clock = (options.clock ?? fakeClock()) as FakeClock;
  const interrupter = new AbortController();
  const started = Date.now();
  let timedOut = false;
  // What a test would do with the child: signal it (an interrupt here), read what it wrote so far.
  options.onSpawn?.(
    {
      stdin: { write: (text: string) => (streams.type(text), true) },
      kill: (signal?: NodeJS.Signals | number) => {
        if (!interrupter.signal.aborted) interrupter.abort(new InterruptedError(signal === 'SIGTERM' ? 143 : 130));
        return true;
      },
    } as unknown as ChildProcess,
    { stdout: () => (options.tty ? streams.outputText() : streams.stdoutText()), stderr: () => (options.tty ? '' : streams.stderrText()) },
  );
  const timer = setTimeout(() => {
    timedOut = true;
    interrupter.abort(new InterruptedError(130));
  }, options.timeoutMs ?? 15_000);
  try {
    const code = await runCliInProcess(args, { env, streams, clock, signal: interrupter.signal, nodeVersion: process.versions.node });
    // A terminal shows both streams as one, as the pty does.
    const stdout = options.tty ? streams.outputText() : streams.stdoutText();
    const stderr = options.tty ? '' : streams.stderrText();
    return { code, signal: null, stdout, stderr, timedOut, ms: Date.now() - started, clock };
  } finally {
    clearTimeout(timer);
  }
}

function spawnCli(args: string[], options: RunOptions): Promise<RunResult> {
  const env = cleanEnv(options.env);
  const started = Date.now();
  const child = options.tty
    ? spawn('script', ['-qefc', [process.execPath, options.bin ?? BIN, ...args].map(shellQuote).join(' '), '/dev/null'], {
        env: { ...env, COLUMNS: '120', LINES: '40' },
        cwd: options.cwd ?? ROOT,
        stdio: ['pipe', 'pipe', 'pipe'],
      })
    : spawn(process.execPath, [options.bin ?? BIN, ...args], { env, cwd: options.cwd ?? ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdin.on('error', () => undefined);
  if (options.input !== undefined) child.stdin.write(options.input);
  // In a pty, closing stdin early would hang up the terminal before the program reads it.
  if (!options.tty) child.stdin.end();
  options.onSpawn?.(child, { stdout: () => stdout, stderr: () => stderr });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, options.timeoutMs ?? 15_000);
  return new Promise((resolvePromise, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (options.tty) stdout = stdout.replace(/\r\n/g, '\n');
      resolvePromise({ code, signal, stdout, stderr, timedOut, ms: Date.now() - started });
    });
  });
}

function shellQuote(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** A fresh config folder, removed by the returned cleanup. */
export function tempDir(prefix = 'crawl-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Resolves when `check` returns true, polling the given source; rejects after `timeoutMs`. */
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

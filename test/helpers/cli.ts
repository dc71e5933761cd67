// Drives the built CLI as a user would: a real process (bin/crawl.js), real HTTP on 127.0.0.1,
// an isolated config folder, and optionally a real terminal (a pty from util-linux `script`).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const BIN = join(ROOT, 'bin', 'crawl.js');

export interface RunOptions {
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
  onSpawn?: (child: import('node:child_process').ChildProcess, output: { stdout: () => string; stderr: () => string }) => void;
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  ms: number;
}

/** The environment every spawned CLI gets: the caller's settings only, nothing from this shell. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of ['PATH', 'HOME', 'LANG', 'TMPDIR', 'SystemRoot']) {
    if (process.env[name] !== undefined) env[name] = process.env[name];
  }
  env.TERM = 'xterm-256color';
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

export function runCli(args: string[], options: RunOptions = {}): Promise<RunResult> {
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

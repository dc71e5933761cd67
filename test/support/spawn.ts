// The one way tests start a process: the built CLI (bin/crawl.js), optionally in a real terminal
// (a pty from util-linux `script`), or any other program, each with a clean environment (nothing
// from the shell that runs the tests but what is named here) and a kill after `timeoutMs`.
// Tests that spawn live in test/process/ (and the spawn mode of runCli, CRAWL_TEST_MODE=spawn).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { shellQuote } from '../../src/text/shell.js';
import { requireTools } from './tools.js';

export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const BIN = join(ROOT, 'bin', 'crawl.js');

/** The environment every spawned process gets: the caller's settings only, nothing from this shell. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of ['PATH', 'LANG', 'TMPDIR', 'SystemRoot']) {
    if (process.env[name] !== undefined) env[name] = process.env[name];
  }
  env.TERM = 'xterm-256color';
  // An empty home, not the user's: the shells a test starts read their startup files from it (zsh's
  // ~/.zshenv and fish's config always; bash its ~/.bashrc whenever its stdin is a socket, as
  // Node's pipes are), and what the user's files set up (aliases, PATH, tools run at each start)
  // is no part of any test, nor a cost each of its shells should pay.
  env.HOME = join(ROOT, '.vitest-tmp', 'home');
  // fish, at its first interactive start in a home without this folder, makes it by parsing every
  // man page of the system in a python left running behind it (seconds of CPU): no test reads it.
  mkdirSync(join(env.HOME, '.local', 'share', 'fish', 'generated_completions'), { recursive: true });
  // Where the spawned CLI keeps its code cache: not the user's home (src/launch/user-cache.cts).
  env.XDG_CACHE_HOME = join(ROOT, '.vitest-tmp', 'xdg-cache');
  // And the job history that completion offers (src/config/job-history.ts): not the user's either.
  env.XDG_STATE_HOME = join(ROOT, '.vitest-tmp', 'xdg-state');
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

/** Whether a process of this id exists (one exited but not yet reaped by its parent still does). */
export function processRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether a process of this id still runs: one that has died counts as gone even before anyone
 * reaps it. A killed grandchild is left to PID 1, which in some containers never reaps it (a
 * zombie, that `kill(pid, 0)` still finds); Linux says so in /proc, elsewhere processRunning answers.
 */
export function processAlive(pid: number): boolean {
  if (!processRunning(pid)) return false;
  try {
    // The state follows the command name, which is in parentheses and may hold anything.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return process.platform !== 'linux' && processRunning(pid);
  }
}

export interface SpawnOptions {
  /** Added to cleanEnv(); undefined removes a variable. */
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Written to stdin, then stdin is closed (in a pty it stays open). Without it stdin is closed at once. */
  input?: string;
  /** 'ignore': stdin is /dev/null instead of a pipe closed at once. */
  stdin?: 'pipe' | 'ignore';
  /** Run inside a pseudo-terminal: stdin, stdout and stderr are TTYs and arrive merged in `stdout`. */
  tty?: boolean;
  /** Killed (SIGKILL) if it has not ended by then: the result says `timedOut`. */
  timeoutMs?: number;
  /** Called once with the child so a test can signal it when a condition shows in its output. */
  onSpawn?: (child: ChildProcess, output: { stdout: () => string; stderr: () => string }) => void;
}

export interface ProcessResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** Runs `command` with `args` to its end. */
export function spawnProcess(command: string, args: readonly string[], options: SpawnOptions = {}): Promise<ProcessResult> {
  const env = cleanEnv(options.env);
  const cwd = options.cwd ?? ROOT;
  if (options.tty) requireTools('script');
  const child = options.tty
    ? spawn('script', ['-qefc', [command, ...args].map(shellQuote).join(' '), '/dev/null'], { env: { ...env, COLUMNS: '120', LINES: '40' }, cwd, stdio: ['pipe', 'pipe', 'pipe'] })
    : spawn(command, args, { env, cwd, stdio: [options.stdin ?? 'pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  if (child.stdin) {
    child.stdin.on('error', () => undefined);
    if (options.input !== undefined) child.stdin.write(options.input);
    // In a pty, closing stdin early would hang up the terminal before the program reads it.
    if (!options.tty) child.stdin.end();
  }
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
      resolvePromise({ code, signal, stdout, stderr, timedOut });
    });
  });
}

/** The built CLI (or another copy of bin/crawl.js, `bin`) as a process. */
export function spawnCli(args: readonly string[], options: SpawnOptions & { bin?: string } = {}): Promise<ProcessResult> {
  return spawnProcess(process.execPath, [options.bin ?? BIN, ...args], options);
}

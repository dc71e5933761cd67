// Helpers for the local-fault batteries (test/battery-local-*.test.ts): the CLI run through bash
// (pipes, ulimit), as an unprivileged user, and found inside a pty to be signalled directly.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { BIN, cleanEnv, ROOT } from './cli.js';

export interface ShellResult {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  ms: number;
}

/**
 * Runs `script` in bash with `set -o pipefail` and a `crawl` function that runs the built CLI, so
 * a pipeline's status is the CLI's own when the reader ends first.
 */
export function runShell(script: string, env: Record<string, string | undefined>, timeoutMs = 15_000): Promise<ShellResult> {
  const prelude = `set -o pipefail; crawl() { '${process.execPath}' '${BIN}' "$@"; }\n`;
  return runProcess('bash', ['-c', prelude + script], env, timeoutMs);
}

/** The command that runs a program as a user without root's powers, or [] when we are not root. */
export function unprivileged(): string[] {
  if (process.getuid?.() !== 0) return [];
  // chmod does not stop root: run as `nobody` (util-linux setpriv, beside the `script` the pty tests use).
  if (spawnSync('setpriv', ['--version']).status !== 0) {
    throw new Error('running as root without setpriv: permission faults cannot be tested here');
  }
  return ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--'];
}

/** The built CLI as an unprivileged user (see unprivileged()). */
export function runCliAsUser(args: string[], env: Record<string, string | undefined>, timeoutMs = 15_000): Promise<ShellResult> {
  const prefix = unprivileged();
  const [command, ...rest] = [...prefix, process.execPath, BIN, ...args];
  return runProcess(command ?? process.execPath, rest, env, timeoutMs);
}

function runProcess(command: string, args: string[], env: Record<string, string | undefined>, timeoutMs: number): Promise<ShellResult> {
  const started = Date.now();
  const child = spawn(command, args, { env: cleanEnv(env), cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, timeoutMs);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, timedOut, ms: Date.now() - started });
    });
  });
}

/** The pid of the CLI (node running bin/crawl.js) among the descendants of `root` (e.g. `script`). */
export function cliPid(root: number): number | undefined {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // The process ended while we looked.
    }
  }
  const queue = [...(children.get(root) ?? [])];
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(BIN)) return pid;
    } catch {
      // Gone.
    }
    queue.push(...(children.get(pid) ?? []));
  }
  return undefined;
}

/**
 * Holds the config's write lock as a live crawl process would (this test runner's pid), until
 * the returned function is called.
 */
export function holdConfigLock(configFile: string, pid = process.pid): () => void {
  const path = `${configFile}.lock`;
  writeFileSync(path, JSON.stringify({ pid, host: hostname(), token: `test-${pid}` }) + '\n', { flag: 'wx' });
  return () => rmSync(path, { force: true });
}

/** A pid that no process has any more. */
export function deadPid(): number {
  const done = spawnSync('true');
  return done.pid ?? 999_999;
}

/** Each non-empty line parses as JSON (a partial last line would throw). */
export function everyLineJson(text: string): unknown[] {
  if (text !== '' && !text.endsWith('\n')) throw new Error(`the last line is cut: ${JSON.stringify(text.slice(-80))}`);
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
}

// Local faults: the CLI run through bash (pipes, ulimit), as an unprivileged user, and found inside
// a pty to be signalled directly; config locks held or left by a dead process.
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { shellQuote } from '../../src/text/shell.js';
import { BIN, cleanEnv, ROOT, spawnProcess, type ProcessResult } from './spawn.js';
import { requireTools, type Tool } from './tools.js';

export type ShellResult = ProcessResult;

/**
 * Runs `script` in bash with `set -o pipefail` and a `crawl` function that runs the built CLI, so
 * a pipeline's status is the CLI's own when the reader ends first.
 */
export function runShell(script: string, env: Record<string, string | undefined>, timeoutMs = 15_000): Promise<ShellResult> {
  requireTools('bash');
  const prelude = `set -o pipefail; crawl() { ${shellQuote(process.execPath)} ${shellQuote(BIN)} "$@"; }\n`;
  return runProcess('bash', ['-c', prelude + script], env, timeoutMs);
}

/** What unprivileged() runs: setpriv when we are root, nothing otherwise (for needs()). */
export const UNPRIVILEGED_TOOLS: Tool[] = process.getuid?.() === 0 ? ['setpriv'] : [];

/** The command that runs a program as a user without root's powers, or [] when we are not root. */
export function unprivileged(): string[] {
  if (process.getuid?.() !== 0) return [];
  // chmod does not stop root: run as `nobody` (util-linux setpriv, beside the `script` the pty tests use).
  return ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--'];
}

/** The built CLI as an unprivileged user (see unprivileged()), run from a copy that user can read. */
export function runCliAsUser(args: string[], env: Record<string, string | undefined>, timeoutMs = 15_000): Promise<ShellResult> {
  const prefix = unprivileged();
  if (prefix.length === 0) return runProcess(process.execPath, [BIN, ...args], env, timeoutMs);
  requireTools('setpriv');
  const copy = userInstall(prefix);
  const [command, ...rest] = [...prefix, copy.node, copy.bin, ...args];
  return runProcess(command ?? copy.node, rest, env, timeoutMs, copy.dir);
}

interface UserInstall {
  dir: string;
  bin: string;
  node: string;
}
let install: UserInstall | undefined;

/**
 * A copy of the built CLI (bin/, the bundle and its loader, package.json: the bundle needs nothing
 * from node_modules) in a 0755 temp folder, made once per test file. The checkout itself may sit
 * in a folder only root can enter (a clone in /root or in a `mktemp -d`), and so may node (an nvm
 * install under /root): then node is copied too. Each candidate is proven by running it as that
 * user.
 */
function userInstall(prefix: string[]): UserInstall {
  if (install) return install;
  const tried: string[] = [];
  for (const base of [...new Set([tmpdir(), '/tmp', '/var/tmp', '/dev/shm'])]) {
    let dir: string;
    try {
      dir = mkdtempSync(join(base, 'crawl-as-user-'));
    } catch {
      continue;
    }
    chmodSync(dir, 0o755);
    for (const part of ['bin', join('dist', 'launch'), join('dist', 'bundle'), 'package.json']) {
      cpSync(join(ROOT, part), join(dir, part), { recursive: true });
    }
    const candidate = { dir, bin: join(dir, 'bin', 'crawl.js'), node: process.execPath };
    if (!runsAsUser(prefix, candidate)) {
      candidate.node = join(dir, 'node');
      copyFileSync(process.execPath, candidate.node);
      chmodSync(candidate.node, 0o755);
    }
    if (runsAsUser(prefix, candidate)) return (install = candidate);
    tried.push(dir);
    rmSync(dir, { recursive: true, force: true });
  }
  throw new Error(`no folder the unprivileged user can run the CLI from (tried ${tried.join(', ') || 'none'})`);
}

function runsAsUser(prefix: string[], copy: UserInstall): boolean {
  // `config path` loads the bundle (`--version` alone would not) and touches no config.
  const [command, ...rest] = [...prefix, copy.node, copy.bin, 'config', 'path'];
  const done = spawnSync(command ?? copy.node, rest, { cwd: copy.dir, env: cleanEnv({ CRAWL_CONFIG_DIR: copy.dir }), encoding: 'utf8' });
  return done.status === 0 && done.stdout === join(copy.dir, 'config.json') + '\n';
}

/** Removes the copy runCliAsUser made, if any (call from the file's afterAll). */
export function removeUserInstall(): void {
  if (install) rmSync(install.dir, { recursive: true, force: true });
  install = undefined;
}

function runProcess(command: string, args: string[], env: Record<string, string | undefined>, timeoutMs: number, cwd = ROOT): Promise<ShellResult> {
  return spawnProcess(command, args, { env, cwd, timeoutMs, stdin: 'ignore' });
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

/**
 * A pid that no process has, now or later in the run: one above the kernel's pid_max. (The pid
 * of a process that has ended is given out again once the counter wraps, and a busy test run
 * wraps a 32768 one: a "dead" lock would then come alive.) Elsewhere, the pid of a process that
 * has ended.
 */
export function deadPid(): number {
  try {
    const max = Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8').trim());
    if (Number.isSafeInteger(max) && max > 0) return max + 1;
  } catch {
    // Not Linux: fall back on a process that has ended.
  }
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

/** A new 0700 folder in `parent` holding `config.json` (0600) with `doc`, for a race on one file. */
export function configFolderWith(parent: string, doc: unknown = { profiles: {} }): { dir: string; file: string } {
  const dir = mkdtempSync(join(parent, 'cfg-'));
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify(doc), { mode: 0o600 });
  return { dir, file };
}

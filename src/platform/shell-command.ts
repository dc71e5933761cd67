// Runs a user's command through the shell with a secret on its standard input: `keys rotate
// --to-command`. The secret goes nowhere else: not in the command's arguments (any user on the
// machine can read those in /proc) and not in its environment (nor is the key in use:
// CRAWL_API_KEY is left out, in any case of its name on Windows).
//
// The shell is Node's `shell: true`: /bin/sh -c on POSIX, %ComSpec% (cmd.exe) /d /s /c on
// Windows, whatever shell crawl itself was started from (platform.ts's commandShell names it). It
// starts in crawl's current folder, except from a UNC one, which cmd.exe refuses (commandFolder).
import { spawn as nodeSpawn, type ChildProcess, type ChildProcessWithoutNullStreams, type SpawnOptions } from 'node:child_process';
import { realClock, type Clock } from './clock.js';
import { CALLED_OFF } from './deadline.js';
import { currentFolder, hasProcessGroups, hostPlatform, signalProcessGroup } from './host.js';
import { commandFolder, envWithout, isWindows, windowsProgram, type Platform } from './platform.js';

/** What starts processes: node:child_process's spawn, or a test's stand-in. */
export type Spawn = (command: string, args: readonly string[], options: SpawnOptions) => ChildProcess;

export interface ShellCommandOptions {
  command: string;
  /** Written to the command's stdin, which is then closed. */
  input: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Each line the command writes (its last, unterminated one included), for the caller to pass on. */
  onStdout(text: string): void;
  onStderr(text: string): void;
  /**
   * Aborting it sends the command SIGTERM, and SIGKILL after `killAfterMs` (on Windows, taskkill
   * at once); `killAfterMs` after the kill, the pipes are no longer waited for.
   */
  signal: AbortSignal;
  killAfterMs?: number;
  /** What times the waits after a stop (for SIGKILL, for the pipes): the real clock by default (a run passes its own). */
  clock?: Pick<Clock, 'deadline'>;
  /** Variables never passed to the command; CRAWL_API_KEY by default. Matched in any case on Windows. */
  withoutEnv?: readonly string[];
  /** The system it runs on: this process's by default (a test gives another to run its branch). */
  platform?: Pick<Platform, 'os'> & { readonly home?: string };
  /** crawl's current folder, which the command starts in where the shell can (platform.ts's commandFolder); this process's by default. */
  cwd?: string;
  /** Starts the command, and on Windows the tree kill: node:child_process's spawn by default. */
  spawn?: Spawn;
}

/**
 * What ends a command and everything it started on Windows, where a process has no group to
 * signal and killing cmd.exe alone leaves its children (gh.exe, say) running with the pipes open.
 * taskkill by its full path (`env`'s SystemRoot), never a taskkill.exe of the current folder.
 */
export function treeKill(pid: number, env: Readonly<Record<string, string | undefined>>): { file: string; args: string[] } {
  return { file: windowsProgram('taskkill', env), args: ['/PID', String(pid), '/T', '/F'] };
}

export type ShellOutcome =
  | { kind: 'exited'; code: number }
  | { kind: 'signalled'; signal: string }
  | { kind: 'failed-to-start'; reason: string };

export function describeOutcome(outcome: ShellOutcome): string {
  if (outcome.kind === 'exited') return `it exited with status ${outcome.code}`;
  if (outcome.kind === 'signalled') return `it was killed by ${outcome.signal}`;
  return `it could not be started: ${outcome.reason}`;
}

export function runShellCommand(options: ShellCommandOptions): Promise<ShellOutcome> {
  const platform = options.platform ?? hostPlatform();
  const spawn: Spawn = options.spawn ?? ((file, args, opts) => nodeSpawn(file, [...args], opts));
  const env = envWithout(options.env, options.withoutEnv ?? ['CRAWL_API_KEY'], platform);
  const windows = isWindows(platform);
  const folder = commandFolder(platform, options.cwd ?? currentFolder(), options.env);
  return new Promise((resolve) => {
    let settled = false;
    let stopped = false;
    // Ends the wait for SIGKILL once the command has ended.
    const ended = new AbortController();
    const finish = (outcome: ShellOutcome): void => {
      if (settled) return;
      settled = true;
      options.signal.removeEventListener('abort', stop);
      ended.abort(CALLED_OFF);
      // A stopped command's output closing says only that the shell is gone: whatever else of
      // its group ignored SIGTERM without holding the pipes is ended now, not left to outlive crawl.
      if (stopped && groups) signalAll('SIGKILL');
      resolve(outcome);
    };
    // In a process group of its own (POSIX), so that stopping it stops what the shell started
    // too: a grandchild left running would hold the output pipes open, and the rotation with
    // them. On Windows the tree is ended by taskkill instead; no console window flashes up.
    const groups = !windows && hasProcessGroups();
    const child = spawn(options.command, [], { shell: true, env, stdio: ['pipe', 'pipe', 'pipe'], detached: groups, windowsHide: true, ...(folder === undefined ? {} : { cwd: folder }) }) as ChildProcessWithoutNullStreams;
    const signalAll = (name: NodeJS.Signals): void => {
      if (!groups || child.pid === undefined || !signalProcessGroup(child.pid, name)) child.kill(name);
    };
    const killTree = (): void => {
      if (child.pid === undefined) return void child.kill();
      const { file, args } = treeKill(child.pid, options.env);
      const killer = spawn(file, args, { stdio: 'ignore', windowsHide: true, shell: false });
      // No taskkill (a stripped-down system): cmd.exe at least.
      killer.on('error', () => child.kill());
    };
    // A deadline keeps no process alive by itself: the command being waited for does.
    const clock = options.clock ?? realClock;
    const grace = options.killAfterMs ?? 5_000;
    // Killed, the command closes the pipes as it goes: that is the end waited for. A process out
    // of the kill's reach may hold them on (one that left the group with setsid; on Windows one
    // that taskkill's tree no longer leads to, its parent gone): after the grace, crawl stops
    // reading them, and the wait ends there.
    const killed = (): void => {
      clock.deadline(grace, ended.signal).then(
        () => {
          child.stdout.destroy();
          child.stderr.destroy();
        },
        () => undefined,
      );
    };
    const stop = (): void => {
      stopped = true;
      if (windows) {
        killTree();
        return killed();
      }
      signalAll('SIGTERM');
      clock.deadline(grace, ended.signal).then(
        () => {
          signalAll('SIGKILL');
          killed();
        },
        () => undefined,
      );
    };
    if (options.signal.aborted) stop();
    else options.signal.addEventListener('abort', stop, { once: true });
    lines(child.stdout, options.onStdout);
    lines(child.stderr, options.onStderr);
    child.on('error', (error: NodeJS.ErrnoException) => finish({ kind: 'failed-to-start', reason: error.code ?? error.message }));
    // A command that exits without reading its input: EPIPE, which says nothing about the outcome.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input);
    child.on('close', (code, signal) => {
      if (signal !== null) finish({ kind: 'signalled', signal });
      else finish({ kind: 'exited', code: code ?? 1 });
    });
  });
}

/** Far longer than any line a store's CLI prints, or a key. */
const MAX_PENDING = 1024 * 1024;

/**
 * Whole lines, so the caller's redaction sees a key whole even when the pipe splits it; a line
 * longer than a pipe's buffer still arrives, in one piece once its end is in.
 */
function lines(stream: NodeJS.ReadableStream, on: (text: string) => void): void {
  let pending = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    const end = chunk.lastIndexOf('\n');
    if (end === -1) {
      pending += chunk;
      // Output that never ends its line (`cat /dev/zero`) is passed on in pieces: memory stays
      // bounded and the caller's own cap on output applies.
      if (pending.length > MAX_PENDING) {
        on(pending);
        pending = '';
      }
      return;
    }
    on(pending + chunk.slice(0, end + 1));
    pending = chunk.slice(end + 1);
  });
  stream.on('end', () => {
    if (pending !== '') on(pending + '\n');
    pending = '';
  });
}

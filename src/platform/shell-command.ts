// Runs a user's command through the shell with a secret on its standard input: `keys rotate
// --to-command`. The secret goes nowhere else: not in the command's arguments (any user on the
// machine can read those in /proc) and not in its environment (nor is the key in use: the
// caller leaves CRAWL_API_KEY out of `env`).
import { spawn } from 'node:child_process';
import { hasProcessGroups, signalProcessGroup } from './host.js';

export interface ShellCommandOptions {
  command: string;
  /** Written to the command's stdin, which is then closed. */
  input: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Each line the command writes (its last, unterminated one included), for the caller to pass on. */
  onStdout(text: string): void;
  onStderr(text: string): void;
  /** Aborting it sends the command SIGTERM (and SIGKILL after `killAfterMs`). */
  signal: AbortSignal;
  killAfterMs?: number;
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
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.env)) if (value !== undefined) env[name] = value;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: ShellOutcome): void => {
      if (settled) return;
      settled = true;
      options.signal.removeEventListener('abort', stop);
      clearTimeout(killTimer);
      resolve(outcome);
    };
    let killTimer: NodeJS.Timeout | undefined;
    // shell: true is /bin/sh -c on POSIX, cmd.exe /d /s /c on Windows: what CI systems run. In a
    // process group of its own, so that stopping it stops what the shell started too: a
    // grandchild left running would hold the output pipes open, and the rotation with them.
    const groups = hasProcessGroups();
    const child = spawn(options.command, { shell: true, env, stdio: ['pipe', 'pipe', 'pipe'], detached: groups });
    const signalAll = (name: NodeJS.Signals): void => {
      if (!groups || child.pid === undefined || !signalProcessGroup(child.pid, name)) child.kill(name);
    };
    const stop = (): void => {
      signalAll('SIGTERM');
      killTimer = setTimeout(() => signalAll('SIGKILL'), options.killAfterMs ?? 5_000);
      killTimer.unref();
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

/**
 * Whole lines, so the caller's redaction sees a key whole even when the pipe splits it; a line
 * longer than a pipe's buffer still arrives, in one piece once its end is in.
 */
function lines(stream: NodeJS.ReadableStream, on: (text: string) => void): void {
  let pending = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    const text = pending + chunk;
    const end = text.lastIndexOf('\n');
    if (end === -1) {
      pending = text;
      return;
    }
    on(text.slice(0, end + 1));
    pending = text.slice(end + 1);
  });
  stream.on('end', () => {
    if (pending !== '') on(pending + '\n');
    pending = '';
  });
}

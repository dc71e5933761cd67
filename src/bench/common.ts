// Shared by the benchmarks: the sandbox in its own process, timing a whole process, statistics.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, ROOT } from '../build/paths.js';

export { BIN, ROOT };

export interface SandboxProcess {
  child: ChildProcess;
  url: string;
  key: string;
}

/**
 * The environment both sides of every pair run with: nothing from this shell but PATH and HOME.
 * NODE_EXTRA_CA_CERTS in particular stays out: it adds a fixed cost to every Node start (reading
 * and parsing the certificates) and would hide the difference being measured. The state folder is
 * the benchmark's own (in `work`): the job ids its runs read stay out of the user's, which Tab offers.
 */
export function benchEnv(work: string, extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { NO_COLOR: '1', XDG_STATE_HOME: join(work, 'xdg-state'), ...extra };
  if (process.env.PATH) env.PATH = process.env.PATH;
  if (process.env.HOME) env.HOME = process.env.HOME;
  return env;
}

/** `crawl sandbox --port 0` in its own process; its first two stdout lines give the URL and key. */
export function startSandboxProcess(): Promise<SandboxProcess> {
  const child = spawn(process.execPath, [BIN, 'sandbox', '--port', '0'], { stdio: ['ignore', 'pipe', 'ignore'] });
  return new Promise((resolvePromise, reject) => {
    let text = '';
    const timer = setTimeout(() => fail(new Error('the sandbox did not start within 15 s')), 15_000);
    const fail = (error: Error): void => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    child.on('error', fail);
    child.on('exit', (code) => fail(new Error(`the sandbox exited early (code ${code})`)));
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk;
      const url = /^Sandbox listening on (\S+)$/m.exec(text)?.[1];
      const key = /^Bootstrap key: (\S+)$/m.exec(text)?.[1];
      if (url && key) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        child.stdout.removeAllListeners('data');
        child.stdout.resume();
        resolvePromise({ child, url, key });
      }
    });
  });
}

/** Wall time of one whole process, from spawn to exit, with stdout on /dev/null. Fails on a non-zero exit. */
export function timeProcess(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const devNull = openSync('/dev/null', 'w');
  const started = performance.now();
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', devNull, 'pipe'] });
  closeSync(devNull);
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolvePromise, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - started;
      if (code !== 0) reject(new Error(`node ${args.join(' ')} exited with ${code}: ${stderr.trim()}`));
      else resolvePromise(ms);
    });
  });
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export function fmt(n: number): string {
  return n.toLocaleString('en-US');
}

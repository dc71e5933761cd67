// Contract (spawned): what only a process with real descriptors shows. stdout as a pipe whose
// reader stalls or leaves (`| head -1`), a FIFO given to --output, /dev/full, a file size limit, and
// help written straight to descriptor 1. The logic behind each (an interrupt while writing, a write
// that fails with EPIPE or ENOSPC) is tested in this process by test/commands/job/pages-signals.test.ts, test/io/output-faults.test.ts
// and test/app/interrupt.test.ts; here the real pipe, FIFO or device does what memory streams cannot.
import { shellQuote } from '../../src/text/shell.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, constants, existsSync, mkdirSync, openSync, readFileSync, readSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { ndjson, runCli, tempDir, waitFor } from '../support/harness.js';
import { BIN, cleanEnv, ROOT } from '../support/spawn.js';
import { calls } from '../support/keys.js';
import { cliPid, everyLineJson, runShell } from '../support/local-faults.js';
import { records, startPagesServer, type PagesServer, type ScriptedJob } from '../support/pages-server.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';
import { needs } from '../support/tools.js';

/**
 * However long what holds a signalled process takes, it is gone this long after the signal
 * (src/main.ts, HARD_LIMIT_MS). Before the line-aligned pipe, a stalled reader held crawl that
 * long; a crawl that ends before it ended by its own exit path, not by this backstop.
 */
const HARD_LIMIT_MS = 10_000;

/** Records of about `size` bytes each, numbered from `first`. */
function sized(first: number, count: number, size: number): string {
  const pad = 'p'.repeat(Math.max(0, size - 60));
  return Array.from({ length: count }, (_, i) => `{"url":"https://example.com/page/${first + i}","pad":"${pad}"}`).join(',');
}

const BATCH = 1000;
const pagesOf = (total: number, render: (first: number, count: number) => string): ScriptedJob => ({
  job: () => ({ body: `{"success":true,"job":{"id":"j","status":"completed","pagesTotal":${total}},"pages":null}` }),
  pages: (q) => {
    const offset = Number(q.get('cursor') ?? 0);
    const count = Math.min(BATCH, total - offset);
    const next = offset + count < total ? `"${offset + count}"` : 'null';
    return { body: `{"pages":[${render(offset + 1, count)}],"next":${next}}` };
  },
});

const JOBS: Record<string, ScriptedJob> = {
  many: pagesOf(20_000, records),
  // Records of about 10 KB, longer than PIPE_BUF: no write of one can be atomic.
  long: pagesOf(2_000, (first, count) => sized(first, count, 10_000)),
};

let svc: PagesServer;
let fx: SandboxFixture;
let tmp: { dir: string; cleanup: () => void };
beforeAll(async () => {
  svc = await startPagesServer(JOBS);
  fx = await sandboxFixture();
  // Enough keys that `keys list` overflows a pipe's buffer: a reader that leaves really hangs up.
  for (let i = 0; i < 1500; i++) fx.sandbox.addKey(`bulk-${i}`);
  tmp = tempDir('crawl-contract-pipes-');
});
afterAll(async () => {
  tmp.cleanup();
  await Promise.all([svc.close(), fx.close()]);
});

const inOrderFromOne = (values: unknown[]): boolean => values.every((r, i) => /\/page\/(\d+)$/.exec((r as { url: string }).url)?.[1] === String(i + 1));

/** Bytes a process has written with system calls. */
function written(pid: number): number {
  try {
    return Number(/wchar: (\d+)/.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/**
 * True once `pid` has written most of a pipe's 64 KiB and then nothing more for a while: the pipe
 * is full and its writer stuck. (Whole-line pieces leave part of each 4 KiB page of the pipe unused.)
 */
function stuckWriter(pid: () => number | undefined): () => boolean {
  let last = -1;
  let since = 0;
  return () => {
    const id = pid();
    if (id === undefined) return false;
    const now = written(id);
    if (now !== last) [last, since] = [now, Date.now()];
    return now >= 60_000 && Date.now() - since >= 300;
  };
}

/** Everything a FIFO holds now and until its writer closes it, read through a non-blocking descriptor. */
function drain(fd: number): string {
  const chunks: Buffer[] = [];
  const buffer = Buffer.alloc(64 * 1024);
  for (;;) {
    let n: number;
    try {
      n = readSync(fd, buffer);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN') break;
      throw error;
    }
    if (n === 0) break;
    chunks.push(Buffer.from(buffer.subarray(0, n)));
  }
  return Buffer.concat(chunks).toString('utf8');
}

function mkfifo(path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('mkfifo', [path], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', (status) => (status === 0 ? resolve() : reject(new Error(`mkfifo ${path} failed`))));
  });
}

/**
 * `crawl job pages <id> | reader`, where the reader waits on a FIFO (`go`) before it reads: it
 * reads nothing, and takes no CPU, until the test writes a line to it. The signal goes to crawl once
 * the pipe is full; returns what the reader got and when crawl ended after the signal. The reader
 * is let go once crawl has ended, or after `readerWaitsMs`.
 */
async function stalledPipe(id: string, signal: NodeJS.Signals, readerWaitsMs: number): Promise<{ exit: string; out: string; exitedAfterMs: number }> {
  const dir = join(tmp.dir, `${id}-${signal}-${readerWaitsMs}`);
  mkdirSync(dir);
  const go = join(dir, 'go');
  const out = join(dir, 'out.ndjson');
  const ended = join(dir, 'ended');
  await mkfifo(go);
  const script =
    `crawl() { ${shellQuote(process.execPath)} ${shellQuote(BIN)} "$@"; }\n` +
    `(crawl job pages ${id}; echo "crawl-exit=$?" >&2; : > '${ended}') | { read -r _ < '${go}'; cat > '${out}'; }`;
  const shell = spawn('bash', ['-c', script], { env: cleanEnv(svc.env), cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  shell.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const closed = new Promise((resolve) => shell.on('close', resolve));
  let pid: number | undefined;
  await waitFor(stuckWriter(() => (pid ??= cliPid(shell.pid ?? 0))), 15_000, 'a full pipe');
  const signalledAt = Date.now();
  let endedAt = Infinity;
  process.kill(pid as number, signal);
  // The reader's own pause (a real one: it is what a slow reader does), or crawl's end.
  if (readerWaitsMs > 0) await new Promise((resolve) => setTimeout(resolve, readerWaitsMs));
  else await waitFor(() => existsSync(ended), 15_000, 'crawl to end while its reader stalls');
  if (existsSync(ended)) endedAt = Date.now();
  // The reader has been blocked opening the FIFO since the pipeline began: this open does not wait.
  await writeFile(go, 'go\n');
  await closed;
  return { exit: stderr, out: readFileSync(out, 'utf8'), exitedAfterMs: endedAt - signalledAt };
}

describe('stdout piped to a reader that stalls', needs('bash'), () => {
  it.concurrent('SIGTERM while the pipe is full: crawl ends (143) while the reader still stalls; the reader then finds only whole lines, in order', async ({ expect }) => {
    const { exit, out, exitedAfterMs } = await stalledPipe('many', 'SIGTERM', 0);
    expect(exit).toBe('crawl-exit=143\n');
    expect(exitedAfterMs).toBeLessThan(HARD_LIMIT_MS);
    expect(out.endsWith('\n')).toBe(true);
    const lines = ndjson(out);
    expect(lines.length).toBeGreaterThan(400);
    expect(inOrderFromOne(lines)).toBe(true);
  });

  it.concurrent('records longer than PIPE_BUF: the line in flight may finish while the reader resumes within a second', async ({ expect }) => {
    // The reader resumes at once after the signal: crawl's grace is 1 s of real time, and a loaded
    // machine can take much of it to schedule the processes, so no pause of the test's own is added.
    const { exit, out } = await stalledPipe('long', 'SIGTERM', 1);
    expect(exit).toBe('crawl-exit=143\n');
    expect(out.endsWith('\n')).toBe(true);
    const lines = ndjson(out);
    expect(lines.length).toBeGreaterThan(0);
    expect(inOrderFromOne(lines)).toBe(true);
  });

  it.concurrent('records longer than PIPE_BUF and a reader that never resumes: crawl (130) still ends, after its short grace', async ({ expect }) => {
    const { exit, exitedAfterMs } = await stalledPipe('long', 'SIGINT', 0);
    expect(exit).toBe('crawl-exit=130\n');
    // The grace is 1 s; before it, a stalled reader held the process until the hard limit.
    expect(exitedAfterMs).toBeLessThan(HARD_LIMIT_MS);
  });
});

describe('--output to a FIFO', () => {
  it.concurrent('no reader ever comes, SIGINT: exit 130 with a clear line, nothing written', async ({ expect }) => {
    const path = join(tmp.dir, 'no-reader.fifo');
    await mkfifo(path);
    const r = await runCli(['job', 'pages', 'many', '--output', path], {
      process: true,
      env: svc.env,
      timeoutMs: 30_000,
      onSpawn: (child, out) => void waitFor(() => out.stderr().includes('waiting for a reader'), 10_000, 'the notice').then(() => child.kill('SIGINT')),
    });
    expect(r.code).toBe(130);
    expect(r.stdout).toBe('');
    // Said by the command itself: it stopped waiting for the open, which no one ever completes.
    expect(r.stderr).toBe(
      `crawl: waiting for a reader to open ${path} (a FIFO) before writing to it\n` +
        `crawl: interrupted while waiting for a reader to open ${path}; nothing was written\n`,
    );
  });

  it.concurrent('the reader stalls, SIGTERM: exit 143; the FIFO holds whole lines, in order, as many as it says', async ({ expect }) => {
    const path = join(tmp.dir, 'stalled.fifo');
    await mkfifo(path);
    // A reader that opens the FIFO and reads nothing until the command is gone.
    const reader = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const r = await runCli(['job', 'pages', 'many', '--output', path], {
        process: true,
        env: svc.env,
        timeoutMs: 30_000,
        onSpawn: (child) => void waitFor(stuckWriter(() => child.pid), 10_000, 'a full FIFO').then(() => child.kill('SIGTERM')),
      });
      expect(r.code).toBe(143);
      const count = Number(/^crawl: interrupted: at least ([\d,]+) records went to .*, each line whole\n$/.exec(r.stderr)?.[1]?.replaceAll(',', ''));
      expect(count).toBeGreaterThan(0);
      const lines = ndjson(drain(reader));
      expect(lines.length).toBeGreaterThanOrEqual(count);
      expect(lines.length).toBeLessThan(20_000);
      expect(inOrderFromOne(lines)).toBe(true);
    } finally {
      closeSync(reader);
    }
  });

  it.concurrent('a reader that reads: every record, exit 0, the notice while it was awaited', async ({ expect }) => {
    const path = join(tmp.dir, 'read.fifo');
    await mkfifo(path);
    const copy = join(tmp.dir, 'read-copy.ndjson');
    let cat: ChildProcess | undefined;
    const r = await runCli(['job', 'pages', 'many', '--output', path], {
      process: true,
      env: svc.env,
      timeoutMs: 60_000,
      onSpawn: (_child, out) => {
        void waitFor(() => out.stderr().includes('waiting for a reader'), 10_000, 'the notice').then(() => {
          cat = spawn('sh', ['-c', `cat '${path}' > '${copy}'`], { stdio: 'ignore' });
        });
      },
    });
    await new Promise((resolve) => (cat?.exitCode !== null ? resolve(undefined) : cat.on('close', resolve)));
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`crawl: waiting for a reader to open ${path} (a FIFO) before writing to it\n`);
    const lines = ndjson(readFileSync(copy, 'utf8'));
    expect(lines).toHaveLength(20_000);
    expect(inOrderFromOne(lines)).toBe(true);
  });
});

describe('a reader that leaves early', needs('bash'), () => {
  it.concurrent('keys list | head -1 gives the reader its one line, and stops (exit 0, nothing on stderr)', async ({ expect }) => {
    const mark = fx.sandbox.requests.length;
    const r = await runShell('crawl keys list | head -1', fx.env);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout.split('\n')).toHaveLength(2);
    expect(r.stdout).toMatch(/^key_\w+\t/);
    expect(calls(fx.sandbox, mark).filter((c) => c === 'GET /api/keys')).toHaveLength(1);
  });

  it.concurrent('job watch --json into a reader gone after its first line: stops quietly once the reader is gone, exit 1 (the job still runs: not 0)', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'w-head', status: 'running', pagesTotal: 100_000, advance: { perPoll: 1 } });
    let first = '';
    const r = await runCli(['job', 'watch', 'w-head', '--json', '--interval', '0.5'], {
      process: true,
      env: fx.env,
      onSpawn: (child) => {
        child.stdout?.once('data', (chunk: string) => {
          first = chunk;
          child.stdout?.destroy();
        });
      },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('');
    expect(JSON.parse(first.split('\n')[0] ?? '')).toMatchObject({ job: { id: 'w-head', status: 'running' } });
    expect(fx.sandbox.getJob('w-head')?.status).toBe('running');
  });

  // The exit code is the job's outcome: a reader gone (`| true`) before the job is printed does not
  // make an errored job a success (runShell sets pipefail: the pipeline exits with crawl's code).
  it.concurrent.for([
    ['job watch demo-errored | true', 10],
    ['job status demo-errored --exit-status | true', 10],
    ['job watch demo-errored --json | true', 10],
    ['job status demo-errored | true', 0],
  ] as const)('%s: exit %i, no error said', async ([line, code], { expect }) => {
    const r = await runShell(`crawl ${line}`, fx.env);
    // (A plain watch's progress line is stderr's, as ever.)
    expect(r.stderr).not.toContain('crawl:');
    expect(r.code).toBe(code);
  });

  it.concurrent('--help | true: help goes straight to the descriptor, and a reader already gone is no error (exit 0)', async ({ expect }) => {
    const r = await runShell('crawl --help | true', fx.env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it.concurrent('stderr to a reader already gone (job watch of an errored job 2>&1 | true): the exit code stands, 10', async ({ expect }) => {
    const r = await runShell('crawl job watch demo-errored 2>&1 > /dev/null | true', fx.env);
    expect(r.code).toBe(10);
  });
});

describe('no room for the output', needs('bash'), () => {
  const ENOSPC = 'crawl: cannot write to standard output: no space left on device (ENOSPC)\n';

  // Help written straight to the descriptor, and records through the stream: the two ways out.
  it.concurrent.for([
    ['--help > /dev/full', '--help'],
    ['job pages > /dev/full', 'job pages demo-large'],
  ])('%s: one line, exit 1, no stack trace', async ([, line], { expect }) => {
    const r = await runShell(`crawl ${line} > /dev/full`, fx.env);
    expect(r.code).toBe(1);
    expect(r.stderr.endsWith(ENOSPC)).toBe(true);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it.concurrent('job pages --output, the disk fills midway (a file size limit): exit 1, the message says how many records the file holds, each whole', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'fills-up', status: 'completed', pagesTotal: 5000 });
    const file = join(tmp.dir, 'full.ndjson');
    // ulimit -f: writes past 300 KiB (two batches and a bit) fail with EFBIG (node ignores SIGXFSZ),
    // as they would with ENOSPC on a full disk.
    const r = await runShell(`ulimit -f 300; crawl job pages fills-up --output '${file}'`, fx.env);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const lines = everyLineJson(readFileSync(file, 'utf8'));
    expect(lines.length).toBeGreaterThan(0);
    expect(inOrderFromOne(lines)).toBe(true);
    expect(r.stderr).toBe(`crawl: cannot write to ${file}: file too large (EFBIG) (the first ${lines.length.toLocaleString('en-US')} records are in the file, each line whole)\n`);
  });
});

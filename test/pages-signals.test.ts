// Ctrl-C and SIGTERM while `job pages` cannot write (issue 11, "Hangs"): --output to a FIFO that
// no one reads yet, or whose reader stalls, and stdout piped to a reader that stalls. The command
// ends promptly (130 / 143) with a clear line, and what reached the reader ends at a line
// boundary, so the NDJSON still parses. FIFOs that are read, /dev/null and regular files still work.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, constants, existsSync, mkdirSync, openSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, ndjson, ROOT, runCli, tempDir, waitFor } from './helpers/cli.js';
import { cliPid } from './helpers/local-faults.js';
import { records, startPagesServer, type PagesServer, type ScriptedJob } from './helpers/pages-server.js';

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
let tmp: { dir: string; cleanup: () => void };
beforeAll(async () => {
  svc = await startPagesServer(JOBS);
  tmp = tempDir('crawl-pages-signals-');
});
afterAll(async () => {
  tmp.cleanup();
  await svc.close();
});

function pageNumbers(values: unknown[]): number[] {
  return values.map((r) => Number(/\/page\/(\d+)$/.exec((r as { url: string }).url)?.[1]));
}

function inOrderFromOne(values: unknown[]): boolean {
  return pageNumbers(values).every((n, i) => n === i + 1);
}

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

describe('--output to a FIFO', () => {
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    it.concurrent(`no reader ever comes, ${signal}: exit ${code} at once, with a clear line`, async ({ expect }) => {
      const path = join(tmp.dir, `no-reader-${signal}.fifo`);
      await mkfifo(path);
      let signalledAt = 0;
      const r = await runCli(['job', 'pages', 'many', '--output', path], {
        env: svc.env,
        timeoutMs: 30_000,
        onSpawn: (child, out) => {
          void waitFor(() => out.stderr().includes('waiting for a reader'), 10_000, 'the notice').then(() => {
            signalledAt = Date.now();
            child.kill(signal);
          });
        },
      });
      expect(r.code).toBe(code);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        `crawl: waiting for a reader to open ${path} (a FIFO) before writing to it\n` +
          `crawl: interrupted while waiting for a reader to open ${path}; nothing was written\n`,
      );
      // A hang is what is tested: a bound far above a prompt exit, far below "never".
      expect(Date.now() - signalledAt).toBeLessThan(5_000);
    });

    it.concurrent(`the reader stalls, ${signal}: exit ${code} at once; the FIFO holds whole lines, in order`, async ({ expect }) => {
      const path = join(tmp.dir, `stalled-${signal}.fifo`);
      await mkfifo(path);
      // A reader that opens the FIFO and reads nothing until the command is gone.
      const reader = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
      try {
        let signalledAt = 0;
        const r = await runCli(['job', 'pages', 'many', '--output', path], {
          env: svc.env,
          timeoutMs: 30_000,
          onSpawn: (child) => {
            void waitFor(stuckWriter(() => child.pid), 10_000, 'a full FIFO').then(() => {
              signalledAt = Date.now();
              child.kill(signal);
            });
          },
        });
        expect(r.code).toBe(code);
        expect(Date.now() - signalledAt).toBeLessThan(5_000);
        const count = Number(/^crawl: interrupted: at least (\d+) records went to .*, each line whole\n$/.exec(r.stderr)?.[1]);
        expect(count).toBeGreaterThan(0);
        const lines = ndjson(drain(reader));
        expect(lines.length).toBeGreaterThanOrEqual(count);
        expect(lines.length).toBeLessThan(20_000);
        expect(inOrderFromOne(lines)).toBe(true);
      } finally {
        closeSync(reader);
      }
    });
  }

  it.concurrent('a reader that reads: every record, exit 0, the notice while it was awaited', async ({ expect }) => {
    const path = join(tmp.dir, 'read.fifo');
    await mkfifo(path);
    const copy = join(tmp.dir, 'read-copy.ndjson');
    let cat: ChildProcess | undefined;
    const r = await runCli(['job', 'pages', 'many', '--output', path], {
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

  it.concurrent('/dev/null and a regular file still work', async ({ expect }) => {
    const devNull = await runCli(['job', 'pages', 'many', '--output', '/dev/null'], { env: svc.env });
    expect([devNull.code, devNull.stderr]).toEqual([0, '']);
    const file = join(tmp.dir, 'plain.ndjson');
    const plain = await runCli(['job', 'pages', 'many', '--output', file], { env: svc.env });
    expect([plain.code, plain.stderr]).toEqual([0, '']);
    expect(ndjson(readFileSync(file, 'utf8'))).toHaveLength(20_000);
  });
});

/**
 * `crawl job pages <id> | reader`, where the reader waits for a file to appear before it reads.
 * The signal goes to crawl once the pipe is full; returns what the reader got and when crawl ended.
 */
async function stalledPipe(id: string, signal: NodeJS.Signals, readerWaitsMs: number): Promise<{ exit: string; out: string; exitedAfterMs: number }> {
  const dir = join(tmp.dir, `${id}-${signal}-${readerWaitsMs}`);
  mkdirSync(dir);
  const go = join(dir, 'go');
  const out = join(dir, 'out.ndjson');
  const ended = join(dir, 'ended');
  const script =
    `crawl() { '${process.execPath}' '${BIN}' "$@"; }\n` +
    `(crawl job pages ${id}; echo "crawl-exit=$?" >&2; touch '${ended}') | { while [ ! -e '${go}' ]; do sleep 0.02; done; cat > '${out}'; }`;
  const shell = spawn('bash', ['-c', script], { env: cleanEnv(svc.env), cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  shell.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const closed = new Promise((resolve) => shell.on('close', resolve));
  let pid: number | undefined;
  await waitFor(stuckWriter(() => (pid ??= cliPid(shell.pid ?? 0))), 15_000, 'a full pipe');
  const signalledAt = Date.now();
  process.kill(pid as number, signal);
  if (readerWaitsMs > 0) await new Promise((resolve) => setTimeout(resolve, readerWaitsMs));
  else await waitFor(() => existsSync(ended), 15_000, 'crawl to end while its reader stalls');
  const exitedAfterMs = existsSync(ended) ? Date.now() - signalledAt : Infinity;
  writeFileSync(go, '');
  await closed;
  return { exit: stderr, out: readFileSync(out, 'utf8'), exitedAfterMs };
}

describe('stdout piped to a reader that stalls', () => {
  for (const [signal, code] of [['SIGTERM', 143], ['SIGINT', 130]] as const) {
    it.concurrent(`${signal}: crawl ends while the reader still stalls, and the reader then finds only whole lines`, async ({ expect }) => {
      const { exit, out, exitedAfterMs } = await stalledPipe('many', signal, 0);
      expect(exit).toBe(`crawl-exit=${code}\n`);
      expect(exitedAfterMs).toBeLessThan(5_000);
      expect(out.endsWith('\n')).toBe(true);
      const lines = ndjson(out);
      expect(lines.length).toBeGreaterThan(100);
      expect(inOrderFromOne(lines)).toBe(true);
    });
  }

  it.concurrent('records longer than PIPE_BUF: the line in flight may finish while the reader resumes within a second', async ({ expect }) => {
    const { exit, out } = await stalledPipe('long', 'SIGTERM', 300);
    expect(exit).toBe('crawl-exit=143\n');
    expect(out.endsWith('\n')).toBe(true);
    const lines = ndjson(out);
    expect(lines.length).toBeGreaterThan(0);
    expect(inOrderFromOne(lines)).toBe(true);
  });

  it.concurrent('records longer than PIPE_BUF and a reader that never resumes: crawl still ends, after its short grace', async ({ expect }) => {
    const { exit, exitedAfterMs } = await stalledPipe('long', 'SIGINT', 0);
    expect(exit).toBe('crawl-exit=130\n');
    // The grace is 1 s; before, a stalled reader held the process 10 s.
    expect(exitedAfterMs).toBeLessThan(5_000);
  });
});

function mkfifo(path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('mkfifo', [path], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', (status) => (status === 0 ? resolve() : reject(new Error(`mkfifo ${path} failed`))));
  });
}

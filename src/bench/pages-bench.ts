// Benchmark of `crawl job pages` on the sandbox's million-page job, side by side with a minimal
// node:http client doing the same work (same endpoint, same page size, same NDJSON to /dev/null).
// Targets: crawl's peak RSS at most 120 MB, its throughput at least 0.8 times the minimal
// client's. Exit 1 when one is missed. Run: `node dist/bench/pages-bench.js [--rounds n]`.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { PAGE_SIZE } from '../api/pages.js';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const BIN = join(ROOT, 'bin', 'crawl.js');
const JOB = 'demo-huge';
const EXPECTED_RECORDS = 1_000_000;
const MAX_RSS_MB = 120;
const MIN_RATIO = 0.8;

/** Loaded into each measured process: its own peak RSS (KiB), on fd 3, as it exits. */
const RSS_PRELOAD = `import { writeSync } from 'node:fs';
process.on('exit', () => {
  try { writeSync(3, String(process.resourceUsage().maxRSS) + '\\n'); } catch {}
});
`;

/** The baseline: what any careful client must do at least, with nothing else. */
const MINIMAL_CLIENT = `import http from 'node:http';
const [base, key, id, limit] = [process.env.CRAWL_BASE_URL, process.env.CRAWL_API_KEY, process.argv[2], process.argv[3]];
const agent = new http.Agent({ keepAlive: true });
function get(url) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, headers: { authorization: 'Bearer ' + key, accept: 'application/json' } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        if (res.statusCode !== 200) reject(new Error('HTTP ' + res.statusCode + ' from ' + url));
        else resolve(Buffer.concat(chunks).toString('utf8'));
      });
    });
    req.on('error', reject);
  });
}
let cursor;
for (;;) {
  const url = new URL('/api/crawl/' + encodeURIComponent(id) + '/pages', base);
  url.searchParams.set('limit', limit);
  if (cursor) url.searchParams.set('cursor', cursor);
  const body = JSON.parse(await get(url));
  let text = '';
  for (const record of body.pages) text += JSON.stringify(record) + '\\n';
  if (!process.stdout.write(text)) await new Promise((r) => process.stdout.once('drain', r));
  cursor = body.next;
  if (!cursor) break;
}
agent.destroy();
`;

interface Measure {
  ms: number;
  rssKiB: number;
}

interface Sandbox {
  child: ChildProcess;
  url: string;
  key: string;
}

async function main(argv: string[]): Promise<number> {
  const rounds = parseRounds(argv);
  const work = mkdtempSync(join(tmpdir(), 'crawl-bench-'));
  const preload = join(work, 'rss.mjs');
  const minimal = join(work, 'minimal.mjs');
  writeFileSync(preload, RSS_PRELOAD);
  writeFileSync(minimal, MINIMAL_CLIENT);
  const sandbox = await startSandbox();
  try {
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      CRAWL_BASE_URL: sandbox.url,
      CRAWL_API_KEY: sandbox.key,
      CRAWL_CONFIG_DIR: join(work, 'config'),
      NO_COLOR: '1',
    };
    const crawlArgs = [BIN, 'job', 'pages', JOB];
    const minimalArgs = [minimal, JOB, String(PAGE_SIZE)];

    // Untimed first: checks the output, and warms the sandbox up for both contenders alike.
    process.stdout.write(`Checking the output of crawl job pages ${JOB} ...\n`);
    const check = await countLines(crawlArgs, env);
    const countOk = check.lines === EXPECTED_RECORDS && check.first === 1 && check.last === EXPECTED_RECORDS;
    process.stdout.write(
      `  ${fmt(check.lines)} lines, first page ${check.first ?? '?'}, last page ${check.last ?? '?'}: ${countOk ? 'ok' : 'WRONG'}\n`,
    );

    const crawl: Measure[] = [];
    const base: Measure[] = [];
    for (let round = 1; round <= rounds; round++) {
      process.stdout.write(`Round ${round} of ${rounds} ...\n`);
      // Interleaved, so a noisy neighbour slows both rather than one.
      crawl.push(await measure(crawlArgs, env, preload));
      base.push(await measure(minimalArgs, env, preload));
    }

    const crawlMs = median(crawl.map((m) => m.ms));
    const baseMs = median(base.map((m) => m.ms));
    const crawlRss = Math.max(...crawl.map((m) => m.rssKiB)) / 1024;
    const baseRss = Math.max(...base.map((m) => m.rssKiB)) / 1024;
    const ratio = baseMs / crawlMs;
    const rssOk = crawlRss <= MAX_RSS_MB;
    const ratioOk = ratio >= MIN_RATIO;

    process.stdout.write(
      [
        '',
        `${fmt(EXPECTED_RECORDS)} records of ${JOB} to /dev/null, page size ${PAGE_SIZE}, median wall time of ${rounds} round(s), highest peak RSS`,
        row('', 'wall', 'records/s', 'peak RSS'),
        row('crawl job pages', secs(crawlMs), fmt(Math.round(EXPECTED_RECORDS / (crawlMs / 1000))), `${crawlRss.toFixed(1)} MB`),
        row('minimal node:http', secs(baseMs), fmt(Math.round(EXPECTED_RECORDS / (baseMs / 1000))), `${baseRss.toFixed(1)} MB`),
        '',
        `throughput ratio crawl/minimal: ${ratio.toFixed(2)} (target >= ${MIN_RATIO}) ${ratioOk ? 'ok' : 'MISSED'}`,
        `peak RSS of crawl: ${crawlRss.toFixed(1)} MB (target <= ${MAX_RSS_MB} MB) ${rssOk ? 'ok' : 'MISSED'}`,
        `record count: ${fmt(check.lines)} (expected ${fmt(EXPECTED_RECORDS)}) ${countOk ? 'ok' : 'MISSED'}`,
        '',
      ].join('\n'),
    );
    return rssOk && ratioOk && countOk ? 0 : 1;
  } finally {
    sandbox.child.kill('SIGTERM');
    rmSync(work, { recursive: true, force: true });
  }
}

function parseRounds(argv: string[]): number {
  const i = argv.indexOf('--rounds');
  if (i < 0) return 3;
  const n = Number(argv[i + 1]);
  if (!Number.isInteger(n) || n < 1 || n > 20) throw new Error('--rounds takes a whole number from 1 to 20');
  return n;
}

/** `crawl sandbox --port 0` in its own process; its first two stdout lines give the URL and key. */
function startSandbox(): Promise<Sandbox> {
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

/** Runs one contender with stdout on /dev/null; wall time from spawn to exit, peak RSS from the preload. */
function measure(args: string[], env: NodeJS.ProcessEnv, preload: string): Promise<Measure> {
  const devNull = openSync('/dev/null', 'w');
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', pathToFileURL(preload).href, ...args], {
    env,
    stdio: ['ignore', devNull, 'pipe', 'pipe'],
  });
  closeSync(devNull);
  let stderr = '';
  let rss = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  (child.stdio[3] as NodeJS.ReadableStream).setEncoding('utf8').on('data', (d: string) => (rss += d));
  return new Promise((resolvePromise, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - started;
      if (code !== 0) return reject(new Error(`${args.join(' ')} exited with ${code}: ${stderr.trim()}`));
      const rssKiB = Number(rss.trim());
      if (!Number.isFinite(rssKiB) || rssKiB <= 0) return reject(new Error(`no peak RSS reported by ${args[0]}`));
      resolvePromise({ ms, rssKiB });
    });
  });
}

/** Counts the NDJSON lines of a run and reads the page numbers of the first and last records. */
function countLines(args: string[], env: NodeJS.ProcessEnv): Promise<{ lines: number; first?: number; last?: number }> {
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let lines = 0;
  let head = '';
  let tail = Buffer.alloc(0);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdout.on('data', (chunk: Buffer) => {
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
    if (head.length < 4096) head += chunk.subarray(0, 4096).toString('utf8');
    tail = Buffer.concat([tail, chunk]).subarray(-4096);
  });
  return new Promise((resolvePromise, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`crawl exited with ${code}: ${stderr.trim()}`));
      const lastLines = tail.toString('utf8').trimEnd().split('\n');
      resolvePromise({ lines, first: pageNumber(head.split('\n')[0]), last: pageNumber(lastLines[lastLines.length - 1]) });
    });
  });
}

function pageNumber(line: string | undefined): number | undefined {
  try {
    const record = JSON.parse(line ?? '') as { url?: unknown };
    const match = typeof record.url === 'string' ? /\/page\/(\d+)$/.exec(record.url) : null;
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

function row(...cells: string[]): string {
  const widths = [20, 10, 12, 10];
  return cells.map((c, i) => c.padEnd(widths[i] ?? 10)).join(' ').trimEnd();
}

function secs(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`;
}

function fmt(n: number): string {
  return n.toLocaleString('en-US');
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`pages-bench: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);

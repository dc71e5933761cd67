// Benchmark of `crawl job pages` on the sandbox's million-page job, side by side with a minimal
// node:http client doing the same work (same endpoint, same page size, same NDJSON to /dev/null).
// Targets: crawl's peak RSS at most 100 MB, its throughput at least that of the minimal client
// (which parses and re-serialises; crawl copies each record's text out of the body instead).
// Run by `npm run bench` (src/bench/index.ts).
import { spawn } from 'node:child_process';
import { closeSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PAGE_SIZE } from '../api/pages.js';
import { BIN, benchEnv, fmt, median, type SandboxProcess } from './common.js';

const JOB = 'demo-huge';
const EXPECTED_RECORDS = 1_000_000;
const MAX_RSS_MB = 100;
const MIN_RATIO = 1.0;

/** Loaded into each measured process: its own peak RSS (KiB), on fd 3, as it exits. */
export const RSS_PRELOAD = `import { writeSync } from 'node:fs';
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

export interface Measure {
  ms: number;
  rssKiB: number;
}

export interface PagesResult {
  rounds: number;
  crawlMs: number;
  baseMs: number;
  crawlRssMB: number;
  baseRssMB: number;
  ratio: number;
  records: number;
  countOk: boolean;
  maxRssMB: number;
  minRatio: number;
}

export async function benchPages(sandbox: SandboxProcess, work: string, rounds: number, log: (line: string) => void): Promise<PagesResult> {
  const preload = join(work, 'rss.mjs');
  const minimal = join(work, 'minimal-pages.mjs');
  writeFileSync(preload, RSS_PRELOAD);
  writeFileSync(minimal, MINIMAL_CLIENT);
  const env = benchEnv(work, { CRAWL_BASE_URL: sandbox.url, CRAWL_API_KEY: sandbox.key, CRAWL_CONFIG_DIR: join(work, 'config') });
  const crawlArgs = [BIN, 'job', 'pages', JOB];
  const minimalArgs = [minimal, JOB, String(PAGE_SIZE)];

  // Untimed first: checks the output, and warms the sandbox up for both contenders alike.
  log(`pages: checking the output of crawl job pages ${JOB} ...`);
  const check = await countLines(crawlArgs, env);
  const countOk = check.lines === EXPECTED_RECORDS && check.first === 1 && check.last === EXPECTED_RECORDS;
  log(`  ${fmt(check.lines)} lines, first page ${check.first ?? '?'}, last page ${check.last ?? '?'}: ${countOk ? 'ok' : 'WRONG'}`);

  const crawl: Measure[] = [];
  const base: Measure[] = [];
  for (let round = 1; round <= rounds; round++) {
    log(`pages: round ${round} of ${rounds} ...`);
    // Interleaved, so a noisy neighbour slows both rather than one.
    crawl.push(await measure(crawlArgs, env, preload));
    base.push(await measure(minimalArgs, env, preload));
  }
  const crawlMs = median(crawl.map((m) => m.ms));
  const baseMs = median(base.map((m) => m.ms));
  return {
    rounds,
    crawlMs,
    baseMs,
    crawlRssMB: Math.max(...crawl.map((m) => m.rssKiB)) / 1024,
    baseRssMB: Math.max(...base.map((m) => m.rssKiB)) / 1024,
    ratio: baseMs / crawlMs,
    records: check.lines,
    countOk,
    maxRssMB: MAX_RSS_MB,
    minRatio: MIN_RATIO,
  };
}

/** Runs one contender with stdout on /dev/null; wall time from spawn to exit, peak RSS from the preload. */
export function measure(args: string[], env: NodeJS.ProcessEnv, preload: string): Promise<Measure> {
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

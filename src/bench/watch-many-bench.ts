// `crawl job watch` of many jobs at once: a thousand ids (and a hundred, for comparison) in the
// sandbox's process, each running for one to five polls. Shows that each round asks once for each
// job still running and no more (requests per job per round: 1.00), and that the peak RSS grows
// little with the number of ids. Run by `npm run bench` (src/bench/index.ts).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, benchEnv, type SandboxProcess } from './common.js';
import { measure, RSS_PRELOAD } from './pages-bench.js';

/** The peak RSS of a watch of a thousand jobs may be at most this. */
const MAX_RSS_MB = 80;

export interface WatchManyResult {
  ids: number;
  /** Requests the sandbox got for these jobs, over the polls they needed (one a job a round). */
  requests: number;
  expected: number;
  rounds: number;
  rssMB: number;
  ms: number;
}

async function control(sandbox: SandboxProcess, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(new URL(path, sandbox.url), body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  return response.json();
}

async function requestsFor(sandbox: SandboxProcess, prefix: string): Promise<number> {
  const { requests } = (await control(sandbox, '/__sandbox/requests')) as { requests: Array<{ url: string }> };
  return requests.filter((r) => r.url.startsWith(`/api/crawl/${prefix}`)).length;
}

export async function benchWatchMany(sandbox: SandboxProcess, work: string, count: number, log: (line: string) => void): Promise<WatchManyResult> {
  const preload = join(work, 'rss-watch.mjs');
  writeFileSync(preload, RSS_PRELOAD);
  const prefix = `bench-many-${count}-`;
  const ids: string[] = [];
  let expected = 0;
  for (let i = 0; i < count; i++) {
    const polls = 1 + (i % 5);
    const id = `${prefix}${i}`;
    await control(sandbox, '/__sandbox/jobs', { id, status: 'running', pagesTotal: polls * 5, advance: { perPoll: 5, endStatus: 'completed' } });
    ids.push(id);
    expected += polls;
  }
  log(`watch: ${count} jobs, each done after 1 to 5 polls ...`);
  const env = benchEnv(work, { CRAWL_BASE_URL: sandbox.url, CRAWL_API_KEY: sandbox.key, CRAWL_CONFIG_DIR: join(work, 'config') });
  const before = await requestsFor(sandbox, prefix);
  const run = await measure([BIN, 'job', 'watch', ...ids, '--interval', '0.5', '--json'], env, preload);
  const requests = (await requestsFor(sandbox, prefix)) - before;
  return { ids: count, requests, expected, rounds: 5, rssMB: run.rssKiB / 1024, ms: run.ms };
}

export { MAX_RSS_MB as WATCH_MANY_MAX_RSS_MB };

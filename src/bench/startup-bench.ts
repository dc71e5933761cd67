// Whole-process time of crawl against Node's own floor, pair by pair. Each pair alternates its two
// commands (A B A B ...) after a warm-up, so a noisy neighbour slows both sides alike; the ratio
// is median(A) / median(B).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, benchEnv, median, timeProcess, type SandboxProcess } from './common.js';

export interface PairResult {
  pair: string;
  a: string;
  b: string;
  aMs: number;
  bMs: number;
  ratio: number;
  /** None: shown for reference only. */
  target?: number;
}

/**
 * The baseline for one status read: one GET with node:http, the same header, the body printed.
 * An ES module, as the target was set against; the same lines as CommonJS start faster (Node's
 * ES module loader costs a few ms), and are measured too, for reference.
 */
const MINIMAL_GET = `import http from 'node:http';
http.get(process.argv[2], { headers: { authorization: 'Bearer ' + process.env.CRAWL_API_KEY, accept: 'application/json' } }, (res) => {
  let body = '';
  res.setEncoding('utf8');
  res.on('data', (d) => (body += d));
  res.on('end', () => process.stdout.write(body + '\\n'));
});
`;

export async function benchStartup(sandbox: SandboxProcess, work: string, runs: number, log: (line: string) => void): Promise<PairResult[]> {
  const minimal = join(work, 'minimal-get.mjs');
  writeFileSync(minimal, MINIMAL_GET);
  const minimalCjs = join(work, 'minimal-get.cjs');
  writeFileSync(minimalCjs, MINIMAL_GET.replace(`import http from 'node:http';`, `const http = require('node:http');`));
  const env = benchEnv({ CRAWL_BASE_URL: sandbox.url, CRAWL_API_KEY: sandbox.key, CRAWL_CONFIG_DIR: join(work, 'config') });
  const pairs = [
    { pair: 'version', a: 'crawl --version', aArgs: [BIN, '--version'], b: 'node -e 0', bArgs: ['-e', '0'], target: 1.1 },
    { pair: 'help', a: 'crawl job --help', aArgs: [BIN, 'job', '--help'], b: 'node -e 0', bArgs: ['-e', '0'], target: 1.2 },
    {
      pair: 'status',
      a: 'crawl job demo-small --json',
      aArgs: [BIN, 'job', 'demo-small', '--json'],
      b: 'node:http GET, body printed',
      bArgs: [minimal, `${sandbox.url}/api/crawl/demo-small`],
      target: 1.5,
    },
    {
      pair: 'status, for reference',
      a: 'crawl job demo-small --json',
      aArgs: [BIN, 'job', 'demo-small', '--json'],
      b: 'the same GET as CommonJS',
      bArgs: [minimalCjs, `${sandbox.url}/api/crawl/demo-small`],
    },
  ];
  const results: PairResult[] = [];
  for (const p of pairs) {
    log(`${p.pair}: ${runs} runs each of "${p.a}" and "${p.b}", alternating ...`);
    for (let i = 0; i < 3; i++) {
      await timeProcess(p.aArgs, env);
      await timeProcess(p.bArgs, env);
    }
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < runs; i++) {
      a.push(await timeProcess(p.aArgs, env));
      b.push(await timeProcess(p.bArgs, env));
    }
    const aMs = median(a);
    const bMs = median(b);
    results.push({ pair: p.pair, a: p.a, b: p.b, aMs, bMs, ratio: aMs / bMs, target: p.target });
  }
  return results;
}

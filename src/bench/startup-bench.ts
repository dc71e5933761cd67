// Whole-process time of crawl against Node's own floor, pair by pair. Each pair alternates its two
// commands (A B A B ...) after a warm-up, so a noisy neighbour slows both sides alike; the result
// is the median of the differences A - B, in milliseconds over the floor (the ratio of the medians
// alongside). Measured twice: the checkout's bin/crawl.js, and the package as users install it (npm
// pack, installed into a folder of its own), whose first run of a kind finds no code cache.
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, ROOT, benchEnv, median, timeProcess, type SandboxProcess } from './common.js';

export interface PairResult {
  pair: string;
  a: string;
  b: string;
  aMs: number;
  bMs: number;
  /** The median of the paired differences A - B. */
  overMs: number;
  /** At most this many ms over the floor; none: shown for reference only. */
  targetMs?: number;
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

/** The minimal GET as a script in `work` (written there), for the pairs and the profiles. */
export function minimalGet(work: string): string {
  const path = join(work, 'minimal-get.mjs');
  writeFileSync(path, MINIMAL_GET);
  return path;
}

/**
 * The environment of every start-up run. The code cache a bin keeps in the user's cache folder is
 * in a folder of the benchmark's own, so a first run finds none and later runs find only what
 * this benchmark's runs left.
 */
export function startupEnv(sandbox: SandboxProcess, work: string): NodeJS.ProcessEnv {
  return benchEnv(work, { CRAWL_BASE_URL: sandbox.url, CRAWL_API_KEY: sandbox.key, CRAWL_CONFIG_DIR: join(work, 'config'), XDG_CACHE_HOME: join(work, 'xdg-cache') });
}

interface Pair {
  pair: string;
  a: string;
  aArgs: string[];
  b: string;
  bArgs: string[];
  targetMs?: number;
  /** Before each run of A: what makes it a first run (the user's code cache removed). */
  beforeA?: () => void;
}

/**
 * The start-up targets: ms over the floor (docs/performance.md). A completion script is answered as
 * `--version` is, from the package alone: shells that eval it pay it at every start.
 */
export const TARGET_MS = { version: 3, help: 5, completion: 3, status: 12, firstRun: 15 } as const;

export async function benchStartup(sandbox: SandboxProcess, work: string, installed: string, runs: number, log: (line: string) => void): Promise<PairResult[]> {
  const minimal = minimalGet(work);
  const minimalCjs = join(work, 'minimal-get.cjs');
  writeFileSync(minimalCjs, MINIMAL_GET.replace(`import http from 'node:http';`, `const http = require('node:http');`));
  const env = startupEnv(sandbox, work);
  const userCache = env.XDG_CACHE_HOME as string;
  const status = `${sandbox.url}/api/crawl/demo-small`;
  const firstRun = (): void => rmSync(userCache, { recursive: true, force: true });
  const node = { version: ['-e', '0'], get: [minimal, status] };
  const pairs: Pair[] = [];
  for (const [where, bin] of [['checkout', BIN], ['installed', installed]] as const) {
    pairs.push(
      { pair: `version, ${where}`, a: 'crawl --version', aArgs: [bin, '--version'], b: 'node -e 0', bArgs: node.version, targetMs: TARGET_MS.version },
      { pair: `help, ${where}`, a: 'crawl job --help', aArgs: [bin, 'job', '--help'], b: 'node -e 0', bArgs: node.version, targetMs: TARGET_MS.help },
      { pair: `completion script, ${where}`, a: 'crawl completion zsh', aArgs: [bin, 'completion', 'zsh'], b: 'node -e 0', bArgs: node.version, targetMs: TARGET_MS.completion },
      { pair: `status, ${where}`, a: 'crawl job demo-small --json', aArgs: [bin, 'job', 'demo-small', '--json'], b: 'node:http GET, body printed', bArgs: node.get, targetMs: TARGET_MS.status },
    );
  }
  pairs.push(
    { pair: 'status, for reference', a: 'crawl job demo-small --json', aArgs: [BIN, 'job', 'demo-small', '--json'], b: 'the same GET as CommonJS', bArgs: [minimalCjs, status] },
    // What users run first: the installed package's first run of each kind compiles everything and
    // leaves a code cache in the user's folder; its later runs (the B side: each runs right after
    // a first run, so finds the cache that run left) start from it.
    { pair: 'help, installed, first run', a: 'crawl job --help, first run', aArgs: [installed, 'job', '--help'], b: 'later runs', bArgs: [installed, 'job', '--help'], beforeA: firstRun, targetMs: TARGET_MS.firstRun },
    { pair: 'status, installed, first run', a: 'crawl job demo-small --json, first run', aArgs: [installed, 'job', 'demo-small', '--json'], b: 'later runs', bArgs: [installed, 'job', 'demo-small', '--json'], beforeA: firstRun, targetMs: TARGET_MS.firstRun },
  );
  const results: PairResult[] = [];
  for (const p of pairs) {
    log(`${p.pair}: ${runs} runs each of "${p.a}" and "${p.b}", alternating ...`);
    for (let i = 0; i < 3; i++) {
      p.beforeA?.();
      await timeProcess(p.aArgs, env);
      await timeProcess(p.bArgs, env);
    }
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < runs; i++) {
      p.beforeA?.();
      a.push(await timeProcess(p.aArgs, env));
      b.push(await timeProcess(p.bArgs, env));
    }
    results.push({ pair: p.pair, a: p.a, b: p.b, aMs: median(a), bMs: median(b), overMs: median(a.map((ms, i) => ms - (b[i] as number))), ...(p.targetMs === undefined ? {} : { targetMs: p.targetMs }) });
  }
  return results;
}
/**
 * The package as a user gets it: `npm pack` of this build (its `files`), installed into a folder
 * of its own, its dependencies from npm's cache where `npm ci` left them. Its bin.
 */
export function installPackage(work: string, log: (line: string) => void): string {
  log('packing the build and installing the tarball into a folder of its own ...');
  const npm = (args: string[], cwd: string): string => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  // --ignore-scripts: the bench has just built; `prepare` would build again.
  const [packed] = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', work], ROOT)) as Array<{ filename: string; name: string }>;
  if (packed === undefined) throw new Error('npm pack made no tarball');
  const prefix = join(work, 'installed');
  npm(['install', '--global', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', join(work, packed.filename)], work);
  return join(prefix, 'lib', 'node_modules', ...packed.name.split('/'), 'bin', 'crawl.js');
}

// `npm run bench`: every speed and memory target of crawl, measured side by side with the floor
// Node itself sets, in one run against one sandbox process. Prints a table; exits 1 if a target
// is missed. Options: --runs N (start-up pairs, default 20), --rounds N (pages, default 3),
// --only startup|pages|watch.
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkCodeCache } from './code-cache.js';
import { startSandboxProcess } from './common.js';
import { BIN } from './common.js';
import { benchKeyring, KEYRING_MAX_EXTRA_MS } from './keyring-bench.js';
import { benchPages } from './pages-bench.js';
import { benchStartup, installPackage, minimalGet, startupEnv } from './startup-bench.js';
import { PARTS, profileRun } from './status-profile.js';
import { benchWatchMany, WATCH_MANY_MAX_RSS_MB } from './watch-many-bench.js';

interface Row {
  pair: string;
  a: string;
  b: string;
  aValue: string;
  bValue: string;
  /** What the target is about: ms over the floor for start-up, else the pair's own measure. */
  result: string;
  /** For start-up: the ratio of the medians, alongside. */
  ratio?: string;
  target: string;
  ok: boolean;
}

const signed = (ms: number): string => `${ms >= 0 ? '+' : ''}${ms.toFixed(1)} ms`;

function option(argv: string[], name: string, fallback: number, max: number): number {
  const i = argv.indexOf(name);
  if (i < 0) return fallback;
  const n = Number(argv[i + 1]);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new Error(`${name} takes a whole number from 1 to ${max}`);
  return n;
}

async function main(argv: string[]): Promise<number> {
  const runs = option(argv, '--runs', 20, 200);
  const rounds = option(argv, '--rounds', 3, 20);
  const only = argv.includes('--only') ? argv[argv.indexOf('--only') + 1] : undefined;
  const log = (line: string): void => void process.stderr.write(line + '\n');
  // A busy machine moves every row: the load before and after say how far to trust them.
  const loadAtStart = loadavg();
  const work = mkdtempSync(join(tmpdir(), 'crawl-bench-'));
  const sandbox = await startSandboxProcess();
  const rows: Row[] = [];
  let cacheLine = '';
  const profileLines: string[] = [];
  try {
    if (only === undefined || only === 'startup') {
      // A start-up measured without the code cache would say little about the CLI as used: the
      // first run of each kind leaves it in the user's cache folder, and V8 must take it after.
      const env = startupEnv(sandbox, work);
      const commands = [['job', '--help'], ['job', 'demo-small', '--json']];
      for (const args of commands) await checkCodeCache(args, env);
      const reports = (await Promise.all(commands.map((args) => checkCodeCache(args, env)))).flat();
      const refused = reports.filter((r) => r.rejected !== false).map((r) => r.file);
      cacheLine =
        refused.length === 0
          ? `code cache: after a first run, taken by V8 for all ${reports.length} files that help and a status read load`
          : `code cache: after a first run, NOT taken for ${refused.join(', ')}`;
      log(cacheLine);
      const installed = installPackage(work, log);
      for (const r of await benchStartup(sandbox, work, installed, runs, log)) {
        rows.push({
          pair: r.pair,
          a: r.a,
          b: r.b,
          aValue: `${r.aMs.toFixed(0)} ms`,
          bValue: `${r.bMs.toFixed(0)} ms`,
          result: signed(r.overMs),
          ratio: `${(r.aMs / r.bMs).toFixed(2)}x`,
          target: r.targetMs === undefined ? '-' : `<= +${r.targetMs} ms`,
          ok: r.targetMs === undefined || r.overMs <= r.targetMs,
        });
      }
      for (const [where, bin] of [['checkout', BIN], ['installed', installed]] as const) {
        const keyring = await benchKeyring(sandbox, work, runs, log, bin);
        if (!keyring) break;
        rows.push({
          pair: `status, key in the keyring, ${where}`,
          a: 'crawl job demo-small --json (GNOME Keyring)',
          b: 'the same with CRAWL_API_KEY',
          aValue: `${keyring.keyringMs.toFixed(0)} ms`,
          bValue: `${keyring.envMs.toFixed(0)} ms`,
          result: signed(keyring.overMs),
          ratio: `${(keyring.keyringMs / keyring.envMs).toFixed(2)}x`,
          target: `<= +${KEYRING_MAX_EXTRA_MS} ms`,
          ok: keyring.overMs <= KEYRING_MAX_EXTRA_MS,
        });
      }
      log('where each run spends its time, profiled ...');
      const profiled: Array<[string, string[]]> = [
        ['node -e 0', ['-e', '0']],
        ['crawl --version', [BIN, '--version']],
        ['crawl job --help', [BIN, 'job', '--help']],
        ['node:http GET', [minimalGet(work), `${sandbox.url}/api/crawl/demo-small`]],
        ['crawl job demo-small --json', [BIN, 'job', 'demo-small', '--json']],
      ];
      const columns: Array<Map<string, number>> = [];
      for (const [, args] of profiled) columns.push(await profileRun(args, env, work, Math.min(runs, 10)));
      profileLines.push(
        '',
        'Where each run spends its time (CPU profile of the checkout, median of each part in ms; the floors beside what they are the floor of):',
        '',
        `| part | ${profiled.map(([name]) => name).join(' | ')} |`,
        `|---|${profiled.map(() => '---').join('|')}|`,
      );
      for (const part of PARTS) profileLines.push(`| ${part} | ${columns.map((column) => (column.get(part) ?? 0).toFixed(1)).join(' | ')} |`);
    }
    if (only === undefined || only === 'pages') {
      const p = await benchPages(sandbox, work, rounds, log);
      const a = 'crawl job pages demo-huge (1,000,000)';
      const b = 'minimal node:http paginator';
      rows.push({
        pair: 'pages throughput',
        a,
        b,
        aValue: `${(p.crawlMs / 1000).toFixed(2)} s`,
        bValue: `${(p.baseMs / 1000).toFixed(2)} s`,
        result: `${p.ratio.toFixed(2)}`,
        target: `>= ${p.minRatio}`,
        ok: p.ratio >= p.minRatio && p.countOk,
      });
      rows.push({
        pair: 'pages peak RSS',
        a,
        b,
        aValue: `${p.crawlRssMB.toFixed(1)} MB`,
        bValue: `${p.baseRssMB.toFixed(1)} MB`,
        result: `${p.crawlRssMB.toFixed(1)} MB`,
        target: `<= ${p.maxRssMB} MB`,
        ok: p.crawlRssMB <= p.maxRssMB,
      });
      if (!p.countOk) log(`pages: WRONG record count ${p.records}`);
    }
    if (only === undefined || only === 'watch') {
      const small = await benchWatchMany(sandbox, work, 100, log);
      const large = await benchWatchMany(sandbox, work, 1000, log);
      const perRound = (r: typeof large): string => `${(r.requests / r.expected).toFixed(2)} (${r.requests} for ${r.expected} polls due)`;
      rows.push({
        pair: 'watch many: requests a job a round',
        a: 'crawl job watch <1,000 ids>',
        b: '100 ids',
        aValue: perRound(large),
        bValue: perRound(small),
        result: (large.requests / large.expected).toFixed(2),
        target: '= 1.00',
        ok: large.requests === large.expected && small.requests === small.expected,
      });
      rows.push({
        pair: 'watch many: peak RSS',
        a: 'crawl job watch <1,000 ids>',
        b: '100 ids',
        aValue: `${large.rssMB.toFixed(1)} MB`,
        bValue: `${small.rssMB.toFixed(1)} MB`,
        result: `${large.rssMB.toFixed(1)} MB`,
        target: `<= ${WATCH_MANY_MAX_RSS_MB} MB`,
        ok: large.rssMB <= WATCH_MANY_MAX_RSS_MB,
      });
    }
  } finally {
    sandbox.child.kill('SIGTERM');
    rmSync(work, { recursive: true, force: true });
  }
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  const lines = [
    '',
    `Node ${process.version}, ${cpus().length} cores (${cpu}), load average ${loadAtStart.map((l) => l.toFixed(2)).join(' ')} at the start, ${loadavg().map((l) => l.toFixed(2)).join(' ')} at the end; start-up pairs: ${runs} alternating runs each, A over B the median of their differences; pages: median of ${rounds} rounds`,
    ...(cacheLine ? [cacheLine] : []),
    '',
    '| pair | A | B | A | B | result (start-up: A over B) | ratio | target | |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.pair} | \`${r.a}\` | ${r.b} | ${r.aValue} | ${r.bValue} | ${r.result} | ${r.ratio ?? '-'} | ${r.target} | ${r.target === '-' ? '' : r.ok ? 'ok' : 'MISSED'} |`),
    ...profileLines,
    '',
  ];
  process.stdout.write(lines.join('\n'));
  return rows.every((r) => r.ok) ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);

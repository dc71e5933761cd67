// `crawl sandbox`: runs a sandbox in the foreground until SIGINT or SIGTERM.
import { ruleFor, type FaultRule } from './faults.js';
import { DEMO_JOB_IDS } from './seed.js';
import { SandboxServer } from './server.js';
import type { Fault } from './types.js';

export interface SandboxCommandOptions {
  port: number;
  /** Milliseconds added to every request. */
  latency?: number;
  /** Every Nth /api request is answered 503. */
  failEvery?: number;
  /** Every Nth /api request is answered 429 with Retry-After: 1. */
  rateLimitEvery?: number;
  /** Every Nth /api request loses its connection before any answer. */
  dropEvery?: number;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  /** Start-up info as one JSON line on stdout (`{url, key, demoJobs}`), and nothing else said. */
  json?: boolean;
  /** Reports a failure to start and returns the exit code; by default a `crawl: ` line on stderr. */
  fail?: (message: string, exitCode: number) => number;
  /** The bootstrap key to use instead of a random one (CRAWL_SANDBOX_KEY). */
  key?: string | undefined;
  /** Aborted when the sandbox is to stop (Ctrl-C, SIGTERM). */
  stop: AbortSignal;
}

export async function runSandbox(opts: SandboxCommandOptions): Promise<number> {
  const fail = opts.fail ?? ((message: string, exitCode: number) => (opts.stderr.write(`crawl: ${message}\n`), exitCode));
  const problem = optionProblem(opts);
  if (problem) return fail(problem, 2);

  let sandbox: SandboxServer;
  try {
    sandbox = await SandboxServer.launch({ port: opts.port, key: opts.key });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'EADDRINUSE' ? 'the port is already in use' : (error as Error).message;
    return fail(`cannot start the sandbox on 127.0.0.1:${opts.port}: ${reason}`, 1);
  }

  if (opts.latency) sandbox.faults.addStanding(ruleFor({ kind: 'latency', ms: opts.latency }));
  const periodic = periodicFaults(opts);
  if (periodic) sandbox.faults.addStanding(periodic);

  const stopped = new Promise<void>((resolve) => {
    if (opts.stop.aborted) return resolve();
    opts.stop.addEventListener('abort', () => resolve(), { once: true });
  });
  if (opts.json) {
    opts.stdout.write(JSON.stringify({ url: sandbox.url, key: sandbox.key, demoJobs: DEMO_JOB_IDS }) + '\n');
  } else {
    // These two lines are parsed by tests and the benchmark: keep them first and unchanged.
    opts.stdout.write(`Sandbox listening on ${sandbox.url}\nBootstrap key: ${sandbox.key}\n`);
    opts.stderr.write(hint(sandbox.url, sandbox.key, opts));
  }

  await stopped;
  await sandbox.close();
  if (!opts.json) opts.stderr.write('Sandbox stopped.\n');
  return 0;
}

function optionProblem(opts: SandboxCommandOptions): string | null {
  if (!Number.isInteger(opts.port) || opts.port < 0 || opts.port > 65535) {
    return `invalid port ${opts.port}: expected an integer from 0 to 65535`;
  }
  if (opts.latency !== undefined && !(Number.isFinite(opts.latency) && opts.latency >= 0)) {
    return `invalid latency ${opts.latency}: expected milliseconds >= 0`;
  }
  for (const name of ['failEvery', 'rateLimitEvery', 'dropEvery'] as const) {
    const n = opts[name];
    if (n !== undefined && !(Number.isInteger(n) && n >= 1)) return `invalid ${name} ${n}: expected an integer >= 1`;
  }
  return null;
}

/** One rule with one counter, so "every Nth" counts /api requests whichever fault fires. */
function periodicFaults(opts: SandboxCommandOptions): FaultRule | null {
  const { failEvery, rateLimitEvery, dropEvery } = opts;
  if (!failEvery && !rateLimitEvery && !dropEvery) return null;
  const unavailable: Fault = {
    kind: 'status',
    status: 503,
    body: JSON.stringify({ success: false, error: 'Service unavailable (sandbox fault)' }),
  };
  const limited: Fault = { kind: 'retry-after', status: 429, retryAfter: '1' };
  const dropped: Fault = { kind: 'drop' };
  let count = 0;
  return (_method, target) => {
    if (target.pathname !== '/api' && !target.pathname.startsWith('/api/')) return undefined;
    count += 1;
    if (failEvery && count % failEvery === 0) return unavailable;
    if (rateLimitEvery && count % rateLimitEvery === 0) return limited;
    if (dropEvery && count % dropEvery === 0) return dropped;
    return undefined;
  };
}

function hint(url: string, key: string, opts: SandboxCommandOptions): string {
  const faults = [
    opts.latency ? `${opts.latency} ms latency on every request` : '',
    opts.failEvery ? `${every(opts.failEvery)} /api request answers 503` : '',
    opts.rateLimitEvery ? `${every(opts.rateLimitEvery)} /api request answers 429` : '',
    opts.dropEvery ? `${every(opts.dropEvery)} /api request is dropped` : '',
  ].filter(Boolean);
  return [
    '',
    'Use it from another shell:',
    `  export CRAWL_BASE_URL=${url} CRAWL_API_KEY=${key}`,
    '  crawl job demo-running',
    `Demo jobs: ${DEMO_JOB_IDS.join(' ')}`,
    ...(faults.length ? [`Faults: ${faults.join('; ')}`] : []),
    'Ctrl-C to stop.',
    '',
  ].join('\n');
}

/** "every", "every 2nd", "every 11th", ... */
function every(n: number): string {
  if (n === 1) return 'every';
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `every ${n}${suffix}`;
}

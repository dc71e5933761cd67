// `crawl sandbox`: runs a sandbox in the foreground until SIGINT or SIGTERM; `--reset` restores
// the demo jobs of one that runs.
import { get as httpGet } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { postReset } from './control-client.js';
import { ruleFor, type FaultRule } from './faults.js';
import { DEMO_JOB_IDS } from './seed.js';
import { SandboxServer } from './server.js';
import type { Fault, RequestLogEntry, SandboxClock } from './types.js';

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
  /** Reports a failure to start (and what to do about it) and returns the exit code; by default `crawl: ` lines on stderr. */
  fail?: (message: string, exitCode: number, hint?: string) => number;
  /** Each request the sandbox receives, one line on stderr once answered (keys redacted). */
  log?: boolean;
  /** The bootstrap key to use instead of a random one (CRAWL_SANDBOX_KEY, or the one kept for the port). */
  key?: string | undefined;
  /** Where the key comes from and whether it lasts, said after the lines to export. */
  keyNote?: string | undefined;
  /** Aborted when the sandbox is to stop (Ctrl-C, SIGTERM). */
  stop: AbortSignal;
  /**
   * Bounds the wait for an answer from whatever holds the port: the run's clock's deadline
   * (`crawl sandbox` passes its own), real time by default. Resolves when `ms` have passed.
   */
  deadline?: Deadline;
  /** What its delays (--latency) wait on: real time by default. */
  clock?: SandboxClock;
  /** crawl as the lines to run name it, typed as this one was started (`node bin/crawl.js`); `crawl` by default. Asked only when a line is printed. */
  crawl?: () => string;
  /**
   * The lines that set these variables in the user's shell, each named by its shell (`shell`) when
   * there are several (the shell in use cannot be told); POSIX's `export NAME=value ...` by default.
   */
  setVariables?: (variables: ReadonlyArray<readonly [string, string]>) => ReadonlyArray<{ text: string; shell?: string }>;
}

type Deadline = (ms: number, signal: AbortSignal) => Promise<void>;

/** Real time; a timer that keeps no process alive by itself. */
const realDeadline: Deadline = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    timer.unref();
    signal.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });

export async function runSandbox(opts: SandboxCommandOptions): Promise<number> {
  const fail = opts.fail ?? ((message: string, exitCode: number, hint?: string) => (opts.stderr.write(`crawl: ${message}\n${hint === undefined ? '' : `hint: ${hint}\n`}`), exitCode));
  const problem = optionProblem(opts);
  if (problem) return fail(problem, 2);

  let sandbox: SandboxServer;
  try {
    sandbox = await SandboxServer.launch({
      port: opts.port,
      ...(opts.clock === undefined ? {} : { clock: opts.clock }),
      key: opts.key,
      ...(opts.log ? { log: (entry: RequestLogEntry) => opts.stderr.write(logLine(entry, new Date())) } : {}),
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      const { reason, hint } = await portTaken(opts.port, opts);
      return fail(`cannot start the sandbox on 127.0.0.1:${opts.port}: ${reason}`, 1, hint);
    }
    return fail(`cannot start the sandbox on 127.0.0.1:${opts.port}: ${(error as Error).message}`, 1);
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

/**
 * What holds the port, and a way out that works: a sandbox already there is to be used (or
 * stopped); anything else, a port that was free a moment ago. Not --port 0: a port picked at
 * random changes at every start, and so would the base URL a login was saved with.
 */
async function portTaken(port: number, opts: SandboxCommandOptions): Promise<{ reason: string; hint: string }> {
  const base = `http://127.0.0.1:${port}`;
  if (await isSandbox(base, opts.deadline ?? realDeadline)) {
    return {
      reason: 'the port is already in use, by a crawl sandbox',
      hint: `use that one (${setVariables(opts, [['CRAWL_BASE_URL', base]])} and the key it printed), restore its demo jobs with \`${crawlWords(opts)} sandbox --reset --port ${port}\`, or stop it (Ctrl-C where it runs) and start again`,
    };
  }
  const free = await freePortNear(port);
  return {
    reason: 'the port is already in use, by another program',
    hint: free === undefined
      ? 'stop the program that holds it, or start on another port with --port <n>'
      : `start on a free port: \`${crawlWords(opts)} sandbox --port ${free}\`, then ${setVariables(opts, [['CRAWL_BASE_URL', `http://127.0.0.1:${free}`]])}; or stop the program that holds ${port}`,
  };
}

function crawlWords(opts: SandboxCommandOptions): string {
  return opts.crawl?.() ?? 'crawl';
}

function variableLines(opts: SandboxCommandOptions, variables: ReadonlyArray<readonly [string, string]>): ReadonlyArray<{ text: string; shell?: string }> {
  return opts.setVariables?.(variables) ?? [{ text: `export ${variables.map(([name, value]) => `${name}=${value}`).join(' ')}` }];
}

/** The lines in a sentence: `export X=…`, or `export X=… in bash, $env:X = '…' in PowerShell`. */
function setVariables(opts: SandboxCommandOptions, variables: ReadonlyArray<readonly [string, string]>): string {
  return variableLines(opts, variables)
    .map(({ text, shell }) => (shell === undefined ? text : `${text} in ${shell}`))
    .join(', ');
}

/**
 * Whether a crawl sandbox answers at `base` (its control endpoint lists the requests it got)
 * within 2 s: a program that is no HTTP server may read and never answer.
 */
function isSandbox(base: string, deadline: Deadline): Promise<boolean> {
  return new Promise((resolve) => {
    const answered = new AbortController();
    const settle = (sandbox: boolean): void => {
      answered.abort();
      resolve(sandbox);
    };
    const req = httpGet(new URL('/__sandbox/requests', base), (res) => {
      res.resume();
      settle(res.statusCode === 200 && /json/.test(res.headers['content-type'] ?? ''));
    });
    deadline(2_000, answered.signal).then(
      () => req.destroy(),
      () => undefined,
    );
    req.on('error', () => settle(false));
    req.on('close', () => settle(false));
  });
}

/** The first port after `port` that 127.0.0.1 can listen on now, among the next few. */
async function freePortNear(port: number): Promise<number | undefined> {
  for (let candidate = port + 1; candidate <= Math.min(65_535, port + 20); candidate++) {
    const free = await new Promise<boolean>((resolve) => {
      const probe = createNetServer();
      probe.once('error', () => resolve(false));
      probe.listen(candidate, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (free) return candidate;
  }
  return undefined;
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
  const crawl = crawlWords(opts);
  const faults = [
    opts.latency ? `${opts.latency} ms latency on every request` : '',
    opts.failEvery ? `${every(opts.failEvery)} /api request answers 503` : '',
    opts.rateLimitEvery ? `${every(opts.rateLimitEvery)} /api request answers 429` : '',
    opts.dropEvery ? `${every(opts.dropEvery)} /api request is dropped` : '',
  ].filter(Boolean);
  return [
    '',
    'Use it from another shell:',
    // A line for each shell it may be, each marked by a comment that both read as one.
    ...variableLines(opts, [['CRAWL_BASE_URL', url], ['CRAWL_API_KEY', key]]).map(({ text, shell }) => `  ${text}${shell === undefined ? '' : `   # ${shell}`}`),
    `  ${crawl} job demo-running`,
    ...(opts.keyNote === undefined ? [] : [opts.keyNote]),
    `Demo jobs: ${DEMO_JOB_IDS.join(' ')}`,
    `Back to how they started: ${crawl} sandbox --reset (from another shell, with the same CRAWL_BASE_URL)`,
    ...(faults.length ? [`Faults: ${faults.join('; ')}`] : []),
    'Ctrl-C to stop.',
    '',
  ].join('\n');
}

/**
 * `12:03:04.567 GET /api/crawl/demo-running 200 3 ms (key "bootstrap" crk_AbCdEfGh)`. The URL
 * comes with any key in it redacted (server.ts); every string is shown with control and invisible
 * format characters escaped: a key's name is whatever a client sent, and this goes to a terminal.
 */
export function logLine(entry: RequestLogEntry, at: Date): string {
  const who = entry.control
    ? 'control'
    : entry.key === 'none'
      ? 'no key'
      : entry.key === 'unknown'
        ? 'an unknown key'
        : `key ${visible(JSON.stringify(entry.key.name))} ${visible(entry.key.keyPrefix)}${entry.key.revoked ? ', revoked' : ''}`;
  const outcome = typeof entry.outcome === 'number' ? String(entry.outcome) : entry.outcome;
  return `${at.toISOString().slice(11, 23)} ${visible(entry.method)} ${visible(entry.url)} ${outcome} ${entry.ms} ms (${who})\n`;
}

function visible(text: string): string {
  return text.replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, (ch) => `\\u{${(ch.codePointAt(0) ?? 0).toString(16)}}`);
}

export interface ResetOptions {
  /** The sandbox's base URL. */
  url: URL;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  json?: boolean;
  fail: (message: string, exitCode: number) => number;
  /** crawl as the hint names it, typed as this one was started; `crawl` by default. */
  crawl?: () => string;
  /** How long the sandbox may take to answer (the run's --timeout). */
  timeoutMs: number;
}

/** `crawl sandbox --reset`: the demo jobs of the sandbox at `url` back as they were at its start. */
export async function resetSandbox(opts: ResetOptions): Promise<number> {
  const where = opts.url.origin;
  let answer;
  try {
    answer = await postReset(opts.url, opts.timeoutMs);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Node's HTTP parser names what it expected (HPE_...): the words every command uses instead.
    const reason = code === 'ECONNREFUSED' ? 'connection refused' : code?.startsWith('HPE_') ? 'the answer is not valid HTTP' : (error as Error).message;
    return opts.fail(`no sandbox answers at ${where}: ${reason} (start one with \`${opts.crawl?.() ?? 'crawl'} sandbox\`)`, 5);
  }
  if (answer.status !== 200) return opts.fail(`${where} is not a crawl sandbox: POST /__sandbox/reset answered HTTP ${answer.status}`, 1);
  if (opts.json) opts.stdout.write(JSON.stringify({ url: where, reset: true, demoJobs: DEMO_JOB_IDS }) + '\n');
  else opts.stderr.write(`Reset the demo jobs of the sandbox at ${where}: ${DEMO_JOB_IDS.join(' ')}\n`);
  return 0;
}

/** "every", "every 2nd", "every 11th", ... */
function every(n: number): string {
  if (n === 1) return 'every';
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `every ${n}${suffix}`;
}

// What the fault batteries share: every command that talks to the service, the one request of
// each that a fault is aimed at, a fresh identity per case (its own key, victim key, running job
// and folder, so cases run concurrently on one sandbox), and the contract every outcome must keep.
import { join } from 'node:path';
import type { ExpectStatic } from 'vitest';
import type { Sandbox } from '../../src/sandbox/index.js';
import { fakeClock, type FakeClock } from './fake-clock.js';
import { startHostile, type Hostile, type Rule } from './hostile-server.js';
import { runCli, tempDir, type RunResult } from './harness.js';

/** A run, and the fake clock it waited on: what it slept, how far its virtual time ran. */
export type Run = RunResult & { clock: FakeClock };

/**
 * Every run's --timeout. The HTTP layer's deadline is on the run's fake clock: it passes only when a
 * case lets a hang last (the hostile server's onHold, then `clock.untilNextDeadline()`), so a case
 * never depends on how fast a loaded machine gets a request out. Its one real-time part, the
 * connect timeout (at most 10 s), is never reached on loopback.
 */
export const TIMEOUT_S = 5;
/**
 * `job watch` keeps polling through transient failures: this bounds it (exit 7). A deadline on the
 * run's fake clock: it passes as the watch's own pauses move virtual time on, never by itself, so
 * a first answer that is slow to come on a loaded machine still ends the watch (401, malformed).
 */
export const MAX_WAIT_S = 3;
/** The HTTP layer's attempts for a GET (src/http/retry.ts MAX_ATTEMPTS); POST and DELETE get one. */
export const GET_ATTEMPTS = 4;
/** The most the HTTP layer's backoff can add over four attempts: 250 + 500 + 1000 ms. */
export const MAX_BACKOFF_MS = 1750;

/** The HTTP layer's pause before retry `n` (1-based; src/http/retry.ts backoffDelay): half its ceiling to all of it. */
export function backoffRange(n: number): [number, number] {
  const ceiling = 250 * 2 ** (n - 1);
  return [ceiling / 2, ceiling];
}

export interface Identity {
  sandbox: Sandbox;
  /** The key in use (CRAWL_API_KEY, or stdin for `auth login --with-key`). */
  key: string;
  /** A second active key, for `keys revoke`. */
  victimId: string;
  /** A running job of this case alone (watch, cancel). */
  jobId: string;
  dir: string;
  cleanup(): void;
}

let serial = 0;

export function identity(sandbox: Sandbox): Identity {
  const n = ++serial;
  const { key } = sandbox.addKey(`battery-${n}`);
  const victim = sandbox.addKey(`victim-${n}`);
  const jobId = `run-${n}`;
  sandbox.addJob({ id: jobId, status: 'running', pagesTotal: 10, pagesFinished: 3 });
  const { dir, cleanup } = tempDir('crawl-battery-');
  return { sandbox, key, victimId: victim.id, jobId, dir, cleanup };
}

export type Method = 'GET' | 'POST' | 'DELETE';

export interface Command {
  name: string;
  argv(id: Identity): string[];
  /** The request a fault is aimed at; the others reach the sandbox. */
  method: Method;
  path(id: Identity): RegExp;
  /**
   * Polls the job: transient failures (network, 429, 5xx) keep it going until --max-wait, where a job
   * never read ends with the last failure's code (5 for the network, 6 for 429, 1 for 5xx).
   */
  polls?: boolean;
  /** Reads the key from stdin instead of CRAWL_API_KEY. */
  keyOnStdin?: boolean;
  /** Sends a GET before the target request (so a dead server fails that one first). */
  listsFirst?: boolean;
  /**
   * Sends a request of its own before the target one (revoke and rotate list the keys, pages reads
   * the job): a GET that the fault lets through, but under the same --timeout.
   */
  getsFirst?: boolean;
}

const esc = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export const COMMANDS: Command[] = [
  { name: 'job status', argv: () => ['job', 'status', 'demo-small'], method: 'GET', path: () => /^\/api\/crawl\/demo-small$/ },
  {
    name: 'job watch',
    argv: (id) => ['job', 'watch', id.jobId, '--interval', '0.5', '--max-wait', String(MAX_WAIT_S)],
    method: 'GET',
    path: (id) => new RegExp(`^/api/crawl/${esc(id.jobId)}$`),
    polls: true,
  },
  { name: 'job pages', argv: () => ['job', 'pages', 'demo-large'], method: 'GET', path: () => /^\/api\/crawl\/demo-large\/pages/, getsFirst: true },
  { name: 'job cancel', argv: (id) => ['job', 'cancel', id.jobId], method: 'DELETE', path: (id) => new RegExp(`^/api/crawl/${esc(id.jobId)}$`) },
  { name: 'keys create', argv: () => ['keys', 'create', 'battery'], method: 'POST', path: () => /^\/api\/keys$/ },
  { name: 'keys list', argv: () => ['keys', 'list'], method: 'GET', path: () => /^\/api\/keys$/ },
  {
    name: 'keys revoke',
    argv: (id) => ['keys', 'revoke', id.victimId, '--yes'],
    method: 'DELETE',
    path: () => /^\/api\/keys\/./,
    listsFirst: true,
    getsFirst: true,
  },
  {
    name: 'keys rotate',
    argv: (id) => ['keys', 'rotate', '--yes', '--output-file', join(id.dir, 'new.key')],
    method: 'POST',
    path: () => /^\/api\/keys$/,
    listsFirst: true,
    getsFirst: true,
  },
  { name: 'auth login', argv: () => ['auth', 'login', '--with-key'], method: 'GET', path: () => /^\/api\/keys$/, keyOnStdin: true },
  { name: 'auth status', argv: () => ['auth', 'status'], method: 'GET', path: () => /^\/api\/keys$/ },
];

export function command(name: string): Command {
  const found = COMMANDS.find((c) => c.name === name);
  if (!found) throw new Error(`no command ${name} in the battery`);
  return found;
}

/**
 * Runs one command of the table as a user would, against `baseUrl`, with this case's identity, in
 * this process, on a fake clock (a fresh one unless the case brings its own, to read its now).
 */
export async function runCommand(
  cmd: Command,
  id: Identity,
  baseUrl: string,
  options: { extra?: string[]; timeoutS?: number; env?: Record<string, string>; clock?: FakeClock } = {},
): Promise<Run> {
  const argv = [...cmd.argv(id), '--timeout', String(options.timeoutS ?? TIMEOUT_S), ...(options.extra ?? [])];
  const env: Record<string, string | undefined> = {
    CRAWL_BASE_URL: baseUrl,
    CRAWL_API_KEY: cmd.keyOnStdin ? undefined : id.key,
    CRAWL_CONFIG_DIR: join(id.dir, 'cfg'),
    ...options.env,
  };
  // Killed before vitest's own 20 s test timeout, so a hang fails with the output it had so far.
  const clock = options.clock ?? fakeClock();
  const r = await runCli(argv, { env, clock, ...(cmd.keyOnStdin ? { input: id.key + '\n' } : {}), timeoutMs: 18_000 });
  return { ...r, clock };
}

export interface Outcome {
  code: number;
  /** --json: the error is one JSON line on stderr, and stdout JSON. */
  json?: boolean;
  /** stdout is NDJSON (job pages), whatever the mode. */
  ndjson?: boolean;
  /** Expected in the error message (the first stderr line). */
  message?: RegExp;
  /** The command reports on stdout and says nothing on stderr (auth status for a rejected key). */
  quiet?: boolean;
  /** What the run may wait, at most: virtual ms on its fake clock (its pauses, and the --timeout of each attempt that hung). */
  withinMs: number;
  /** The pauses between the HTTP layer's attempts, exactly: see Waits. */
  retries?: Retries;
  /** A watch that gives up: its clock ran to --max-wait (this many ms) and stopped there. */
  gaveUpAtMs?: number;
  /** The time on the clock outside the pauses, exactly: the --timeout of each attempt that hung. */
  hungMs?: number;
}

/**
 * The HTTP layer's pauses, in order: `count` of them (one before each retry), each `retryAfterMs`
 * when the service asked for it (capped at 30 s), else the backoff of its attempt.
 */
export interface Retries {
  count: number;
  retryAfterMs?: number | undefined;
}

interface Waits {
  withinMs: number;
  retries?: Retries | undefined;
  gaveUpAtMs?: number | undefined;
  /** The time on the clock outside the pauses, exactly: the --timeout of each attempt that hung. */
  hungMs?: number | undefined;
}

/**
 * What the run waited, read off its fake clock: no more than `withinMs` in all, and where the case
 * knows them, exactly the pauses the retry policy asks for, or a watch stopped at --max-wait. (What
 * wall-clock bounds used to catch, a wait that --timeout and the retry policy do not bound, is a
 * pause on the clock; a hang on real I/O ends at the run's 18 s guard, as `timedOut`.)
 */
function checkWaits(expect: ExpectStatic, r: Run, want: Waits, context: string): void {
  const { sleeps } = r.clock;
  const waited = `waited ${r.clock.elapsed()} ms on the clock, in pauses of [${sleeps.join(', ')}] ms\n${context}`;
  expect(r.clock.elapsed(), waited).toBeLessThanOrEqual(want.withinMs);
  if (want.retries) {
    const { count, retryAfterMs } = want.retries;
    expect(sleeps.length, waited).toBe(count);
    const inBackoff = (ms: number, retry: number): void => {
      const [low, high] = backoffRange(retry);
      expect(ms, waited).toBeGreaterThanOrEqual(low);
      expect(ms, waited).toBeLessThanOrEqual(high);
    };
    sleeps.forEach((ms, i) => (retryAfterMs === undefined ? inBackoff(ms, i + 1) : expect(ms, waited).toBe(retryAfterMs)));
  }
  if (want.gaveUpAtMs !== undefined) expect(r.clock.elapsed(), waited).toBe(want.gaveUpAtMs);
  if (want.hungMs !== undefined) expect(r.clock.elapsed() - sleeps.reduce((sum, ms) => sum + ms, 0), waited).toBe(want.hungMs);
  // Every deadline the run set (a request's --timeout, --max-wait) was called off or passed.
  expect(r.clock.pendingDeadlines(), `deadlines left set\n${context}`).toBe(0);
}

/**
 * The contract of a failure, whatever the fault: the documented exit code, one `crawl: ` line on
 * stderr (plus at most one `hint:` line; a watch may warn before it), no stack trace, stdout empty
 * or one JSON document a line, no full key anywhere, and no more waited than the bound.
 */
export function checkOutcome(expect: ExpectStatic, r: Run, want: Outcome, secrets: readonly string[]): void {
  const context = `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`;
  expect(r.timedOut, context).toBe(false);
  expect(r.code, context).toBe(want.code);
  for (const text of [r.stdout, r.stderr]) {
    expect(text, context).not.toContain('    at ');
    for (const secret of secrets) expect(text.includes(secret), `a full key was printed\n${context}`).toBe(false);
  }
  checkWaits(expect, r, want, context);

  if (want.json || want.ndjson) {
    for (const line of r.stdout.split('\n').filter((l) => l !== '')) expect(() => JSON.parse(line), context).not.toThrow();
  } else if (!want.quiet) {
    // A failure puts nothing on stdout that a script could take for data.
    expect(r.stdout, context).toBe('');
  }
  if (want.quiet) {
    expect(r.stderr, context).toBe('');
    return;
  }
  const lines = r.stderr.split('\n').filter((l) => l !== '');
  // A watch warns on each transient failure and reports progress before it gives up.
  const own = lines.filter((l) => !/^crawl: warning: /.test(l) && !/^\[\d+:\d\d\] /.test(l));
  if (want.json) {
    expect(own.length, context).toBe(1);
    const parsed = JSON.parse(own[0] ?? '') as { error: { message: string; exitCode: number; httpStatus: number | null } };
    expect(parsed.error.exitCode, context).toBe(want.code);
    expect(parsed.error.message, context).toMatch(want.message ?? /./);
    return;
  }
  expect(own.length, context).toBeGreaterThanOrEqual(1);
  expect(own.length, context).toBeLessThanOrEqual(2);
  expect(own[0], context).toMatch(/^crawl: \S/);
  if (want.message) expect(own[0], context).toMatch(want.message);
  if (own[1] !== undefined) expect(own[1], context).toMatch(/^hint: \S/);
}

/** A run that must not fail (or fails with a job's own code): bounded waits, no stack, no key, clean machine output. */
export function checkClean(
  expect: ExpectStatic,
  r: Run,
  want: { code: number; json?: boolean; verbose?: boolean } & Waits,
  secrets: readonly string[],
): void {
  const context = `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`;
  expect(r.timedOut, context).toBe(false);
  expect(r.code, context).toBe(want.code);
  checkWaits(expect, r, want, context);
  for (const text of [r.stdout, r.stderr]) {
    // --verbose may show a stack trace; nothing else may.
    if (!want.verbose) expect(text, context).not.toContain('    at ');
    for (const secret of secrets) expect(text.includes(secret), `a full key was printed\n${context}`).toBe(false);
  }
  if (want.json) {
    for (const line of r.stdout.split('\n').filter((l) => l !== '')) expect(() => JSON.parse(line), context).not.toThrow();
  }
}

/** A job response as the service documents it, with `fields` of the job and `top` fields changed. */
export function job(fields: Record<string, unknown> = {}, top: Record<string, unknown> = {}): string {
  return JSON.stringify({
    success: true,
    job: { id: 'demo-small', url: 'https://example.com/', status: 'completed', pagesTotal: 2, pagesFinished: 2, creditsUsed: 2, createdAt: '2026-01-01T00:00:00Z', ...fields },
    pages: [],
    ...top,
  });
}

/** A hostile proxy in front of the case's sandbox for the length of `run`; then the case is cleaned up. */
export async function withHostile<T>(
  id: Identity,
  rules: Rule[],
  run: (url: string, hostile: Hostile) => Promise<T>,
  options: { clock?: FakeClock } = {},
): Promise<T> {
  // With the run's clock, the proxy stamps each request with when it came in the run's virtual time.
  const hostile = await startHostile({ upstream: id.sandbox.url, rules, ...(options.clock ? { clock: options.clock } : {}) });
  try {
    return await run(hostile.url, hostile);
  } finally {
    await hostile.close();
    id.cleanup();
  }
}

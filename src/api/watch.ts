// Following one job until it ends: the poll loop of `crawl job watch`, `job pages --wait`,
// `job cancel --wait` and the Node client's `jobs.watch`. Only the job is polled (never its pages),
// over the client's kept-alive connection; what is shown of it is the caller's business.
import type { CrawlError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import type { HttpClient } from '../http/client.js';
import { HttpStatusError, NetworkError } from '../http/errors.js';
import { backoffDelay } from '../http/retry.js';
import type { Clock } from '../platform/clock.js';
import { withinDeadline } from '../platform/deadline.js';
import { formatProgress } from '../text/format.js';
import { sanitize } from '../text/sanitize.js';
import { getJob, isTerminal, type Job, type JobResponse } from './jobs.js';

const MAX_FAILURE_BACKOFF_MS = 30_000;

export interface PollOptions {
  intervalMs: number;
  /** A `clock` time after which the watch gives up (--max-wait); none: it waits as long as the job runs. */
  deadline?: number | undefined;
  clock: Clock;
  /** Ends every wait at once, with its reason. */
  signal?: AbortSignal | undefined;
  /** The error thrown at the deadline: from the last job seen, or, when none came, the last failure. */
  giveUp(lastJob: Job | undefined, lastFailure: CrawlError | undefined): Error;
}

/** A changed job (status or pages finished), or a transient failure about to be waited out. */
export type PollEvent = { kind: 'change'; response: JobResponse } | { kind: 'retry'; error: CrawlError; waitMs: number };

/**
 * Polls until the job reaches a terminal status; yields each change (the first answer included)
 * and each transient failure (network but TLS, 429, 5xx), which is backed off; returns the last
 * response. Any other failure ends the watch with its own error.
 */
export async function* pollJob(http: HttpClient, id: string, options: PollOptions): AsyncGenerator<PollEvent, JobResponse, undefined> {
  let lastSeen: string | undefined;
  let lastJob: Job | undefined;
  let failures = 0;
  let lastFailure: CrawlError | undefined;
  for (;;) {
    let response: JobResponse;
    try {
      // The watch has its own backoff, and says so: the HTTP layer's silent retries stay off.
      response = await withinDeadline(options.clock, options.deadline, getJob(http, id, { retry: false }), () => options.giveUp(lastJob, lastFailure));
      failures = 0;
    } catch (error) {
      if (!isTransient(error)) throw error;
      failures++;
      lastFailure = error as CrawlError;
      const waitMs = failureWait(error, failures, options.intervalMs);
      yield { kind: 'retry', error: lastFailure, waitMs };
      await sleepUntil(options, waitMs, () => options.giveUp(lastJob, lastFailure));
      continue;
    }
    const { job } = response;
    lastJob = job;
    const seen = `${job.status}\u0000${String(job.pagesFinished)}`;
    if (seen !== lastSeen) {
      lastSeen = seen;
      yield { kind: 'change', response };
    }
    if (isTerminal(job.status)) return response;
    await sleepUntil(options, options.intervalMs, () => options.giveUp(job, undefined));
  }
}

/**
 * The wait after a transient failure: the watch's own backoff (never shorter than the interval),
 * or longer if the service said how long with Retry-After, up to 30 s (a longer ask is not
 * waited out whole: the next poll just gets another 429 and its own Retry-After).
 */
export function failureWait(error: unknown, failures: number, intervalMs: number): number {
  const own = Math.min(MAX_FAILURE_BACKOFF_MS, Math.max(intervalMs, backoffDelay(failures + 2)));
  const asked = error instanceof HttpStatusError ? error.retryAfterMs : undefined;
  return asked === undefined ? own : Math.max(own, Math.min(MAX_FAILURE_BACKOFF_MS, asked));
}

/**
 * What a watch waits out: a service restarting or a network blip (refused, reset, DNS, a timeout),
 * 429 and 5xx. A TLS failure is the HTTP layer's own `tls` (http/errors.ts): it does not heal, and
 * ends the watch with the error and hint a single read gives.
 */
export function isTransient(error: unknown): boolean {
  if (error instanceof NetworkError) return !error.tls;
  if (error instanceof HttpStatusError) return error.status === 429 || error.status >= 500;
  return false;
}

/**
 * The exit code of a watch that gave up at its deadline: 7 when the job was read (it was still
 * unfinished); when it never was, nothing is known of the job, and the code is the last failure's
 * own (5 for the network), or 5 when no attempt was ever answered.
 */
export function gaveUpCode(job: Job | undefined, lastFailure: CrawlError | undefined): number {
  if (job !== undefined) return ExitCode.waitElapsed;
  return lastFailure?.exitCode ?? ExitCode.network;
}

/** Why a watch gave up at its deadline: what the last answer said, or, when none came, why. */
export function gaveUpWaiting(job: Job | undefined, lastFailure: CrawlError | undefined): string {
  const state = job === undefined
    ? `the job could not be read yet${lastFailure ? ` (the last attempt: ${lastFailure.message})` : ''}`
    : `the job is still ${sanitize(job.status)}, ${formatProgress(job.pagesFinished, job.pagesTotal)}`;
  return `gave up waiting: ${state}`;
}

/** Sleeps `ms`, or until the deadline; at the deadline a poll has already happened, so it gives up. */
async function sleepUntil(options: PollOptions, ms: number, giveUp: () => Error): Promise<void> {
  const { clock, deadline, signal } = options;
  if (deadline === undefined) return clock.sleep(ms, signal);
  const left = deadline - clock.now();
  if (left <= 0) throw giveUp();
  await clock.sleep(Math.min(ms, left), signal);
}

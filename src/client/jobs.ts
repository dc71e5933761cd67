import { getJob, isTerminal, requestCancel, terminalExitCode } from '../api/jobs.js';
import type { Job, JobStatus } from '../api/model.js';
import { inlinePages, readPageBatches } from '../api/pages.js';
import { gaveUpCode, gaveUpWaiting, pollJob } from '../api/watch.js';
import { CrawlError, InterruptedError, UsageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { answeredUnread } from '../http/errors.js';
import { arrayElements, type JsonSpan } from '../text/json-scan.js';
import { formatProgress } from '../text/format.js';
import { sanitize } from '../text/sanitize.js';
import type { Connection } from './connection.js';

export type { Job, JobStatus };

const DEFAULT_INTERVAL_MS = 2000;

export interface WatchOptions {
  /** Between polls (default 2000). */
  intervalMs?: number | undefined;
  /** Give up after this long: the iterator throws a CrawlError with exitCode 7. */
  maxWaitMs?: number | undefined;
  /** Ends the watch: the iterator throws an InterruptedError. */
  signal?: AbortSignal | undefined;
  /** Called for each transient failure (network, 429, 5xx) before it is waited out. */
  onRetry?: ((error: CrawlError, waitMs: number) => void) | undefined;
}

export interface PagesOptions {
  /** Each record as the exact text the service sent (a string), not parsed. */
  raw?: boolean | undefined;
  /** Stop after this many records. */
  limit?: number | undefined;
}

export interface CancelOptions extends WatchOptions {
  /** Resolve once the job has stopped (cancelled_by_user); another end rejects with its exit code. */
  wait?: boolean | undefined;
}

/** Crawl jobs: read, watch, export, cancel. */
export class JobsClient {
  readonly #c: Connection;

  /** @internal */
  constructor(connection: Connection) {
    this.#c = connection;
  }

  /** GET /api/crawl/:id. Fields the interface does not show pass through. */
  async get(id: string): Promise<Job> {
    try {
      return (await getJob(this.#c.http(), id)).job;
    } catch (error) {
      throw this.#c.redactor.redactError(error);
    }
  }

  /**
   * Each state of the job as it changes (its status or pages finished), the first one included,
   * ending with the terminal one. Transient failures are retried with backoff, as `crawl job watch` does.
   */
  async *watch(id: string, options: WatchOptions = {}): AsyncGenerator<Job, void, undefined> {
    try {
      yield* this.#follow(id, options);
    } catch (error) {
      throw this.#c.redactor.redactError(error);
    }
  }

  /**
   * The job's records, in order, a batch at a time (never more than one batch ahead): parsed, or
   * with `raw` each record's bytes as sent. The job must have finished, as for `crawl job pages`.
   */
  pages(id: string, options: PagesOptions & { raw: true }): AsyncGenerator<string, void, undefined>;
  pages(id: string, options?: PagesOptions & { raw?: false | undefined }): AsyncGenerator<unknown, void, undefined>;
  /** `raw` known only at run time: strings when it is true, parsed records when not. */
  pages(id: string, options?: PagesOptions): AsyncGenerator<unknown, void, undefined>;
  async *pages(id: string, options: PagesOptions = {}): AsyncGenerator<unknown, void, undefined> {
    try {
      yield* this.#pages(id, options);
    } catch (error) {
      throw this.#c.redactor.redactError(error);
    }
  }

  async *#pages(id: string, options: PagesOptions): AsyncGenerator<unknown, void, undefined> {
    checkCount('limit', options.limit);
    const http = this.#c.http();
    const response = await getJob(http, id);
    const { job } = response;
    if (job.status === 'pending' || job.status === 'running') {
      throw new CrawlError(
        `job ${sanitize(job.id)} is still ${sanitize(job.status)}, ${formatProgress(job.pagesFinished, job.pagesTotal)}: its pages are read once it has finished`,
        ExitCode.usage,
        { hint: 'watch it first: `for await (const state of client.jobs.watch(id))`' },
      );
    }
    const max = options.limit ?? Infinity;
    const record = (text: string, span: JsonSpan): unknown => {
      const bytes = text.slice(span.start, span.end);
      return options.raw ? bytes : JSON.parse(bytes);
    };
    const inline = inlinePages(response);
    if (inline) {
      if (!inline.records) return;
      let taken = 0;
      for (const span of arrayElements(inline.text, inline.records)) {
        if (taken++ >= max) return;
        yield record(inline.text, span);
      }
      return;
    }
    for await (const batch of readPageBatches(http, id, options.limit === undefined ? {} : { max: options.limit })) {
      let taken = 0;
      for (const span of arrayElements(batch.text, batch.records)) {
        if (taken++ >= batch.take) break;
        yield record(batch.text, span);
      }
    }
  }

  /**
   * DELETE /api/crawl/:id, sent once. Resolves with the job as the answer (or a GET after it)
   * shows it; with `wait`, once it has stopped.
   */
  async cancel(id: string, options: CancelOptions = {}): Promise<Job> {
    try {
      return await this.#cancel(id, options);
    } catch (error) {
      throw this.#c.redactor.redactError(error);
    }
  }

  async #cancel(id: string, options: CancelOptions): Promise<Job> {
    // Before the DELETE: a wait that cannot be done must not follow a cancellation already sent.
    if (options.wait === true) checkWait(options);
    const http = this.#c.http();
    let answer;
    try {
      answer = await requestCancel(http, id);
    } catch (error) {
      if (answeredUnread(error)) throw new CrawlError(`${error.message}; the cancellation may have reached the service`, error.exitCode, { cause: error });
      throw error;
    }
    if (!options.wait) return answer.job?.job ?? (await getJob(http, id)).job;
    let last: Job | undefined;
    for await (const state of this.#follow(id, options)) last = state;
    if (last === undefined || last.status === 'cancelled_by_user') return last as Job;
    throw new CrawlError(`the job ended ${sanitize(last.status)} before the cancellation took effect`, terminalExitCode(last.status) ?? ExitCode.failure);
  }

  async *#follow(id: string, options: WatchOptions): AsyncGenerator<Job, void, undefined> {
    checkWait(options);
    const { clock } = this.#c.system;
    const signal = interruptOn(options.signal ? AbortSignal.any([options.signal, this.#c.signal]) : this.#c.signal);
    const aborted = whenAborted(signal);
    const poll = pollJob(this.#c.http(), id, {
      intervalMs: options.intervalMs ?? DEFAULT_INTERVAL_MS,
      deadline: options.maxWaitMs === undefined ? undefined : clock.now() + options.maxWaitMs,
      clock,
      signal,
      giveUp: (job, lastFailure) => new CrawlError(gaveUpWaiting(job, lastFailure), gaveUpCode(job, lastFailure)),
    });
    for (;;) {
      const step = await Promise.race([poll.next(), aborted]);
      if (step.done) return;
      const event = step.value;
      if (event.kind === 'retry') options.onRetry?.(event.error, event.waitMs);
      else {
        yield event.response.job;
        if (isTerminal(event.response.job.status)) return;
      }
    }
  }
}

/** A signal whose reason is an InterruptedError, as every wait of the CLI's layers expects. */
function interruptOn(signal: AbortSignal): AbortSignal {
  const interrupt = new AbortController();
  const abort = (): void => interrupt.abort(signal.reason instanceof InterruptedError ? signal.reason : new InterruptedError());
  if (signal.aborted) abort();
  else signal.addEventListener('abort', abort, { once: true });
  return interrupt.signal;
}

/** Rejects with the signal's reason once it aborts: a request in flight is not waited for. */
function whenAborted(signal: AbortSignal): Promise<never> {
  const aborted = new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
  aborted.catch(() => undefined);
  return aborted;
}

/**
 * A watch's numbers, refused before any request: 0, a negative interval or NaN would poll in a
 * tight loop, a deadline that is no number would never come. Short intervals are the caller's to
 * choose (a test against the sandbox polls every few milliseconds); the CLI's floor of 0.5 s is
 * for people at a prompt.
 */
function checkWait(options: WatchOptions): void {
  checkMs('intervalMs', options.intervalMs, 'above 0');
  checkMs('maxWaitMs', options.maxWaitMs, '0 or more');
}

/** The longest wait a timer takes: past it, Node waits 1 ms instead, and warns on stderr. */
const MAX_MS = 2 ** 31 - 1;

/** @internal Milliseconds a timer can wait: above 0 (or 0 or more), at most MAX_MS (about 24.8 days). */
export function checkMs(name: string, value: number | undefined, least: 'above 0' | '0 or more'): void {
  if (value === undefined) return;
  const low = least === 'above 0' ? value > 0 : value >= 0;
  if (!(Number.isFinite(value) && low && value <= MAX_MS)) throw new UsageError(`${name} must be a number of milliseconds ${least}, at most ${MAX_MS}, not ${String(value)}`);
}

/** A count of records: a whole number, 1 or more (the service would answer 400, or send them all). */
function checkCount(name: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isSafeInteger(value) && value >= 1)) throw new UsageError(`${name} must be a whole number of records, 1 or more, not ${String(value)}`);
}

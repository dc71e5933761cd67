import { getJob, isTerminal, type Job, type JobResponse } from '../../../api/jobs.js';
import type { Deps } from '../../../deps.js';
import { CrawlError } from '../../../errors.js';
import { ExitCode } from '../../../exit-codes.js';
import type { HttpClient } from '../../../http/client.js';
import { HttpStatusError, NetworkError } from '../../../http/errors.js';
import { backoffDelay } from '../../../http/retry.js';
import { formatElapsed, formatProgress, formatSeconds, percentDone, progressBar, toCount } from '../../../text/format.js';
import { Redrawn } from './redrawn.js';
import { withinDeadline } from '../../shared/deadline.js';
import { loadTerminalText, type TerminalText } from '../../../io/terminal-text.js';
import { groupDigits } from '../../../text/locale.js';
import { sanitize } from '../../../text/sanitize.js';
import type { Style } from '../../../io/style.js';
import { writeNdjson } from '../../../io/json.js';

export interface FollowOptions {
  intervalMs: number;
  maxWaitMs?: number | undefined;
  /** When --max-wait started counting before this watch (deps.clock.now() time); wins over maxWaitMs. */
  deadline?: number | undefined;
  /** job watch --json: each changed body as NDJSON on stdout. Off for pages --wait, whose stdout is pages. */
  ndjson: boolean;
}

const MAX_FAILURE_BACKOFF_MS = 30_000;
export const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/**
 * Polls one job until it reaches a terminal status and returns the last response. Only the job is
 * polled (never its pages), over the client's kept-alive connection. Transient failures (network,
 * 429, 5xx) warn and back off; anything else ends the watch with its own error. --max-wait ends it
 * with exit 7. Interrupts surface as InterruptedError from the HTTP layer's waits.
 */
export async function followJob(deps: Deps, http: HttpClient, id: string, options: FollowOptions): Promise<JobResponse> {
  const started = deps.clock.now();
  const deadline = options.deadline ?? (options.maxWaitMs === undefined ? undefined : started + options.maxWaitMs);
  const display = await ProgressDisplay.create(deps, started, options.ndjson);
  const release = deps.guard.onCleanup(() => display.stop());
  let lastSeen: string | undefined;
  let lastJob: Job | undefined;
  let failures = 0;
  let lastFailure: CrawlError | undefined;
  try {
    for (;;) {
      let response: JobResponse | undefined;
      try {
        // The watch has its own backoff, and says so: the HTTP layer's silent retries stay off.
        response = await withinDeadline(deps, deadline, getJob(http, id, { retry: false }), () => stillRunning(lastJob, lastFailure));
        failures = 0;
      } catch (error) {
        if (!isTransient(error)) throw error;
        failures++;
        lastFailure = error as CrawlError;
        const wait = failureWait(error, failures, options.intervalMs);
        display.warn(`${lastFailure.message}; retrying in ${formatSeconds(wait)}`);
        await sleepUntil(deps, deadline, wait, () => stillRunning(lastJob, lastFailure));
        continue;
      }
      const { job, raw } = response;
      lastJob = job;
      const seen = `${job.status}\u0000${String(job.pagesFinished)}`;
      if (seen !== lastSeen) {
        lastSeen = seen;
        if (options.ndjson) writeNdjson(deps.io.stdout, raw);
        display.change(job.status, job.pagesFinished, job.pagesTotal);
      }
      if (isTerminal(job.status)) return response;
      await sleepUntil(deps, deadline, options.intervalMs, () => stillRunning(job));
    }
  } finally {
    release();
    display.stop();
  }
}

/**
 * The wait after a transient failure: the watch's own backoff (never shorter than --interval),
 * or longer if the service said how long with Retry-After, up to 30 s (a longer ask is not
 * waited out whole: the next poll just gets another 429 and its own Retry-After).
 */
export function failureWait(error: unknown, failures: number, intervalMs: number): number {
  const own = Math.min(MAX_FAILURE_BACKOFF_MS, Math.max(intervalMs, backoffDelay(failures + 2)));
  const asked = error instanceof HttpStatusError ? error.retryAfterMs : undefined;
  return asked === undefined ? own : Math.max(own, Math.min(MAX_FAILURE_BACKOFF_MS, asked));
}

/** What the last answer said, for the --max-wait message; when none came, why. */
export function stillRunning(job: Job | undefined, lastFailure?: CrawlError): CrawlError {
  const state = job === undefined
    ? `no answer from the service yet${lastFailure ? ` (the last attempt: ${lastFailure.message})` : ''}`
    : `the job is still ${sanitize(job.status)}, ${formatProgress(job.pagesFinished, job.pagesTotal)}`;
  return new CrawlError(`gave up waiting: ${state}`, ExitCode.waitElapsed, {
    hint: 'raise --max-wait, or run the command again later',
  });
}

/** Sleeps `ms`, or until the deadline; at the deadline a poll has already happened, so it gives up. */
async function sleepUntil(deps: Deps, deadline: number | undefined, ms: number, giveUp: () => CrawlError): Promise<void> {
  if (deadline === undefined) return deps.clock.sleep(ms, deps.signal);
  const left = deadline - deps.clock.now();
  if (left <= 0) throw giveUp();
  await deps.clock.sleep(Math.min(ms, left), deps.signal);
}

export function isTransient(error: unknown): boolean {
  if (error instanceof NetworkError) return true;
  if (error instanceof HttpStatusError) return error.status === 429 || error.status >= 500;
  return false;
}


/** The parts of the watch's live line, each already styled. */
export interface WatchLineParts {
  spinner: string;
  status: string;
  bar: string | undefined;
  progress: string;
  elapsed: string;
}

/**
 * The live line at most `room` columns wide: `⠋ running ████░░░░ 37/120 pages (31%)  0:42`, then
 * without the bar, then without the elapsed time, then cut with `…`: a line wider than the
 * terminal would wrap, and a wrapped line cannot be redrawn in place.
 */
export function fitWatchLine(parts: WatchLineParts, room: number, text: TerminalText): string {
  const head = `${parts.spinner} ${parts.status}`;
  const tail = ` ${parts.progress}  ${parts.elapsed}`;
  for (const line of [parts.bar === undefined ? undefined : `${head} ${parts.bar}${tail}`, head + tail, `${head} ${parts.progress}`]) {
    if (line !== undefined && text.width(line) <= room) return line;
  }
  return text.truncate(`${head} ${parts.progress}`, Math.max(1, room));
}

/** Where progress goes: a live line on a terminal, a line per change otherwise, nothing extra with --json. */
class ProgressDisplay {
  readonly #deps: Deps;
  readonly #started: number;
  readonly #quiet: boolean;
  readonly #style: Style;
  readonly #live: Redrawn | undefined;
  #frame = 0;
  #state: { status: string; finished: unknown; total: unknown } | undefined;

  static async create(deps: Deps, started: number, ndjson: boolean): Promise<ProgressDisplay> {
    const live = !ndjson && deps.io.stderrLive;
    return new ProgressDisplay(deps, started, ndjson, await deps.style('stderr'), live ? await loadTerminalText() : undefined);
  }

  private constructor(deps: Deps, started: number, quiet: boolean, style: Style, text: TerminalText | undefined) {
    this.#deps = deps;
    this.#started = started;
    this.#quiet = quiet;
    this.#style = style;
    this.#live = text ? new Redrawn(deps, text, () => this.#line(text)) : undefined;
  }

  change(status: string, finished: unknown, total: unknown): void {
    this.#state = { status, finished, total };
    if (this.#quiet) return;
    if (this.#live) return this.#live.redraw();
    const elapsed = formatElapsed(this.#deps.clock.now() - this.#started);
    this.#deps.io.stderr.write(`[${elapsed}] ${sanitize(status)} ${formatProgress(finished, total)}\n`);
  }

  warn(message: string): void {
    const line = `crawl: warning: ${this.#deps.redactor.redact(sanitize(message))}`;
    if (this.#live) this.#live.message(line);
    else this.#deps.io.stderr.write(line + '\n');
  }

  /** The last state stays on screen, once: Ctrl-C's cleanup and the watch's own end both call this. */
  stop(): void {
    this.#live?.stop();
  }

  #line(text: TerminalText): string | undefined {
    if (!this.#state) return undefined;
    const { status, finished, total } = this.#state;
    return fitWatchLine(
      {
        spinner: isTerminal(status) ? ' ' : (SPINNER[this.#frame++ % SPINNER.length] as string),
        status: this.#style.status(sanitize(status)),
        bar: toCount(total) ? progressBar(percentDone(finished, total), 24) : undefined,
        progress: formatProgress(finished, total, groupDigits(this.#deps.env)),
        elapsed: formatElapsed(this.#deps.clock.now() - this.#started),
      },
      // The cursor's column would wrap a line exactly as wide as the terminal on some terminals.
      this.#deps.io.stderrColumns - 1,
      text,
    );
  }
}

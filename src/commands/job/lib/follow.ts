import { isTerminal, type Job, type JobResponse } from '../../../api/jobs.js';
import { gaveUpCode, gaveUpWaiting, pollJob } from '../../../api/watch.js';
import type { Deps } from '../../../deps.js';
import { CrawlError } from '../../../errors.js';
import { ExitCode } from '../../../exit-codes.js';
import type { HttpClient } from '../../../http/client.js';
import { formatElapsed, formatProgress, formatSeconds, percentDone, progressBar, toCount } from '../../../text/format.js';
import { Redrawn } from './redrawn.js';
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

export const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/**
 * Polls one job until it reaches a terminal status (api/watch.ts) and returns the last response,
 * showing its progress: a live line on a terminal, a line a change otherwise, NDJSON with --json.
 * Transient failures warn and back off; --max-wait ends it with exit 7 (a job never read: the
 * last failure's code). Interrupts surface as InterruptedError from the waits.
 */
export async function followJob(deps: Deps, http: HttpClient, id: string, options: FollowOptions): Promise<JobResponse> {
  const started = deps.clock.now();
  const deadline = options.deadline ?? (options.maxWaitMs === undefined ? undefined : started + options.maxWaitMs);
  const display = await ProgressDisplay.create(deps, started, options.ndjson);
  const release = deps.guard.onCleanup(() => display.stop());
  const poll = pollJob(http, id, { intervalMs: options.intervalMs, deadline, clock: deps.clock, signal: deps.signal, giveUp: stillRunning });
  try {
    for (;;) {
      const step = await poll.next();
      if (step.done) return step.value;
      const event = step.value;
      if (event.kind === 'retry') {
        display.warn(`${event.error.message}; retrying in ${formatSeconds(event.waitMs)}`);
        continue;
      }
      const { job, raw } = event.response;
      if (options.ndjson) writeNdjson(deps.io.stdout, raw);
      display.change(job.status, job.pagesFinished, job.pagesTotal);
    }
  } finally {
    release();
    display.stop();
  }
}

/**
 * The --max-wait failure: what the last answer said (exit 7), or, when none came, why: a job never
 * read is not known to be unfinished, so the code is the last failure's (api/watch.ts, gaveUpCode).
 */
export function stillRunning(job: Job | undefined, lastFailure?: CrawlError): CrawlError {
  if (job !== undefined) return new CrawlError(gaveUpWaiting(job, undefined), ExitCode.waitElapsed, { hint: 'raise --max-wait, or run the command again later' });
  return new CrawlError(gaveUpWaiting(undefined, lastFailure), gaveUpCode(undefined, lastFailure), {
    ...(lastFailure?.httpStatus === undefined ? {} : { httpStatus: lastFailure.httpStatus }),
    hint: lastFailure?.hint ?? 'check the base URL and that the service is up, or run the command again later',
  });
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
  /** Made once: a redraw a tick would otherwise build a number formatter each time. */
  readonly #count: (n: number) => string;
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
    this.#count = groupDigits(deps.env);
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
        progress: formatProgress(finished, total, this.#count),
        elapsed: formatElapsed(this.#deps.clock.now() - this.#started),
      },
      // The cursor's column would wrap a line exactly as wide as the terminal on some terminals.
      this.#deps.io.stderrColumns - 1,
      text,
    );
  }
}

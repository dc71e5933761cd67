import { getJob, isTerminal, terminalExitCode, type Job } from '../../../api/jobs.js';
import type { Deps } from '../../../deps.js';
import { CrawlError, FilterError, InterruptedError, isCrawlError } from '../../../errors.js';
import { ExitCode } from '../../../exit-codes.js';
import { writeNdjson } from '../../../io/json.js';
import type { Style } from '../../../io/style.js';
import { loadTerminalText, type TerminalText } from '../../../io/terminal-text.js';
import { formatElapsed, formatProgress, formatSeconds, percentDone, progressBar, toCount } from '../../../text/format.js';
import { groupDigits } from '../../../text/locale.js';
import { sanitize } from '../../../text/sanitize.js';
import { withinDeadline } from '../../../platform/deadline.js';
import { fitWatchLine, SPINNER, stillRunning } from './follow.js';
import { failureWait, isTransient } from '../../../api/watch.js';
import { worstOutcome, type Outcome } from './outcome.js';
import { printJobRows } from './rows.js';
import { Redrawn } from './redrawn.js';
import { CONCURRENT_READS, mapLimit } from './status-many.js';

export interface WatchManyOptions {
  intervalMs: number;
  maxWaitMs: number | undefined;
  /** Stop at the first job that ends other than completed, or cannot be read. */
  failFast: boolean;
}

/** --max-wait ran out while a poll was on the wire: the loop ends, and says so once for all. */
class MaxWaitElapsed extends CrawlError {
  constructor() {
    super('gave up waiting', ExitCode.waitElapsed);
  }
}

/** One id being watched. */
interface Watched {
  id: string;
  job: Job | undefined;
  /** Status and progress last shown: a poll that changes neither shows nothing. */
  seen: string | undefined;
  done: boolean;
  /** On the deps clock: when the poll that found the job ended came back; its time stops there. */
  endedAt: number | undefined;
  failed: CrawlError | undefined;
  /** The last transient failure waited out: what --max-wait names for a job never read. */
  lastFailure: CrawlError | undefined;
  /** On the deps clock: when this id is polled next (its interval, or its backoff after a failure). */
  nextPollAt: number;
  failures: number;
}

/**
 * `job watch a b c`: every job polled in one loop on the run's one connection pool, each at
 * --interval (a few requests in flight at once), a finished one no more. A job that cannot be read
 * (404, 401) is reported for its id and the others go on, unless --fail-fast; transient failures
 * back off per id, as a single watch does. The exit code is the worst outcome (outcome.ts).
 */
export async function watchJobs(deps: Deps, ids: readonly string[], options: WatchManyOptions): Promise<number> {
  const http = await deps.http();
  const started = deps.clock.now();
  const deadline = options.maxWaitMs === undefined ? undefined : started + options.maxWaitMs;
  // An id given twice is watched once.
  const watched: Watched[] = [...new Set(ids)].map((id) => ({ id, job: undefined, seen: undefined, done: false, endedAt: undefined, failed: undefined, lastFailure: undefined, nextPollAt: started, failures: 0 }));
  // A reader gone while a job still runs (`--json | head -1`) must not read as "completed".
  deps.exitIfReaderLeaves(ExitCode.failure);
  const display = await MultiDisplay.create(deps, watched, started);
  const release = deps.guard.onCleanup(() => display.stop());
  let gaveUp = false;
  const giveUp = (): CrawlError => new MaxWaitElapsed();
  try {
    for (;;) {
      const now = deps.clock.now();
      const due = watched.filter((w) => !w.done && w.nextPollAt <= now);
      await mapLimit(due, CONCURRENT_READS, (w) => poll(deps, http, w, options, display, deadline, giveUp));
      if (options.failFast && watched.some(stopsAll)) break;
      const next = nextPollAt(watched);
      if (next === undefined) break;
      if (deadline !== undefined && (deps.clock.now() >= deadline || next >= deadline)) {
        if (deps.clock.now() < deadline) await deps.clock.sleep(deadline - deps.clock.now(), deps.signal);
        gaveUp = true;
        break;
      }
      await deps.clock.sleep(Math.max(0, next - deps.clock.now()), deps.signal);
    }
  } catch (error) {
    // --max-wait ran out while a poll was on the wire.
    if (!(error instanceof MaxWaitElapsed)) throw error;
    gaveUp = true;
  } finally {
    release();
    display.stop();
  }

  // A job never read when --max-wait ran out is not known to be unfinished: it failed, with the
  // last attempt's code (5 for the network), which outranks every status as any failure does.
  const unread = gaveUp ? watched.filter((w) => !w.done && w.job === undefined) : [];
  const neverRead = unread.map((w) => (w.failed = ofJob(w.id, stillRunning(undefined, w.lastFailure))));
  const outcomes: Outcome[] = watched.map((w): Outcome => {
    if (w.failed) return { kind: 'failed', code: w.failed.exitCode };
    const code = w.job ? terminalExitCode(w.job.status) : undefined;
    return { kind: 'job', code: code ?? ExitCode.waitElapsed };
  });
  // The watch has ended: a reader that leaves now misses only the final output.
  const code = worstOutcome(outcomes);
  deps.exitIfReaderLeaves(code);
  const read = watched.flatMap((w) => (w.job ? [w.job] : []));
  if (!deps.globals.json && read.length > 0) await printJobRows(deps, read);
  for (const failure of neverRead) deps.report(failure);
  const left = gaveUp ? watched.filter((w) => !w.done && w.job !== undefined) : [];
  if (left.length > 0) {
    deps.report(
      new CrawlError(`gave up waiting after ${formatSeconds(options.maxWaitMs ?? 0)}: ${left.length} of ${watched.length} jobs not finished (${left.slice(0, 5).map((w) => sanitize(w.id)).join(', ')}${left.length > 5 ? ', …' : ''})`, ExitCode.waitElapsed, {
        hint: 'raise --max-wait, or watch them again later',
      }),
    );
  }
  return code;
}

/** One poll of one id: its state, what is shown, when it is polled next. */
async function poll(
  deps: Deps,
  http: Awaited<ReturnType<Deps['http']>>,
  w: Watched,
  options: WatchManyOptions,
  display: MultiDisplay,
  deadline: number | undefined,
  giveUp: () => CrawlError,
): Promise<void> {
  try {
    const { job, raw } = await withinDeadline(deps.clock, deadline, getJob(http, w.id, { retry: false }), giveUp);
    // An answer that came after the watch ended (another poll stopped it): nothing more is shown.
    if (display.stopped) return;
    w.failures = 0;
    w.job = job;
    if (isTerminal(job.status)) w.endedAt ??= deps.clock.now();
    const seen = `${job.status}\u0000${String(job.pagesFinished)}`;
    if (seen !== w.seen) {
      w.seen = seen;
      if (deps.globals.json) writeNdjson(deps.io.stdout, raw);
      display.change(w);
    }
    if (isTerminal(job.status)) w.done = true;
    w.nextPollAt = deps.clock.now() + options.intervalMs;
  } catch (error) {
    if (display.stopped) return;
    // The --jq filter's error or halt is the output's, not this job's: it ends the watch, as on one job.
    if (error instanceof InterruptedError || error instanceof MaxWaitElapsed || error instanceof FilterError || !isCrawlError(error)) throw error;
    if (isTransient(error)) {
      w.failures++;
      w.lastFailure = error;
      const wait = failureWait(error, w.failures, options.intervalMs);
      display.warn(`job ${sanitize(w.id)}: ${error.message}; retrying in ${formatSeconds(wait)}`);
      w.nextPollAt = deps.clock.now() + wait;
      return;
    }
    w.done = true;
    w.failed = ofJob(w.id, error);
    display.failed(w.failed);
  }
}

/** The error of one id among several: its message after `job <id>: `, its code, HTTP status and hint. */
function ofJob(id: string, error: CrawlError): CrawlError {
  return new CrawlError(`job ${sanitize(id)}: ${error.message}`, error.exitCode, {
    ...(error.httpStatus === undefined ? {} : { httpStatus: error.httpStatus }),
    ...(error.hint === undefined ? {} : { hint: error.hint }),
  });
}

/**
 * When the next poll is due: the earliest of the ids still watched; undefined once all are done.
 * One pass and no array: the loop asks after every round, however few polls it made.
 */
function nextPollAt(watched: readonly Watched[]): number | undefined {
  let next: number | undefined;
  for (const w of watched) if (!w.done && (next === undefined || w.nextPollAt < next)) next = w.nextPollAt;
  return next;
}

/** --fail-fast stops at a job that cannot be read, or that ended other than completed. */
function stopsAll(w: Watched): boolean {
  if (w.failed) return true;
  return w.done && w.job !== undefined && terminalExitCode(w.job.status) !== ExitCode.ok;
}

/**
 * On a terminal, a block with a live line a job, redrawn in place (each line fitted to the width;
 * no more lines than the terminal has rows: the jobs still going first, then a summary line);
 * elsewhere, a line a change, prefixed by the id; with --json, nothing but warnings.
 */
class MultiDisplay {
  readonly #deps: Deps;
  readonly #watched: readonly Watched[];
  readonly #started: number;
  readonly #style: Style;
  readonly #live: Redrawn | undefined;
  /** Made once: a redraw a tick would otherwise build a number formatter each time. */
  readonly #count: (n: number) => string;
  #frame = 0;
  #stopped = false;

  static async create(deps: Deps, watched: readonly Watched[], started: number): Promise<MultiDisplay> {
    const live = !deps.globals.json && deps.io.stderrLive;
    return new MultiDisplay(deps, watched, started, await deps.style('stderr'), live ? await loadTerminalText() : undefined);
  }

  private constructor(deps: Deps, watched: readonly Watched[], started: number, style: Style, text: TerminalText | undefined) {
    this.#deps = deps;
    this.#watched = watched;
    this.#started = started;
    this.#style = style;
    this.#count = groupDigits(deps.env);
    this.#live = text ? new Redrawn(deps, text, () => this.#block(text)) : undefined;
    this.#live?.redraw();
  }

  change(w: Watched): void {
    if (this.#deps.globals.json) return;
    if (this.#live) return this.#live.redraw();
    const job = w.job;
    if (!job) return;
    const elapsed = formatElapsed(this.#deps.clock.now() - this.#started);
    this.#deps.io.stderr.write(`[${elapsed}] ${sanitize(w.id)} ${sanitize(job.status)} ${formatProgress(job.pagesFinished, job.pagesTotal)}\n`);
  }

  warn(message: string): void {
    const line = `crawl: warning: ${this.#deps.redactor.redact(sanitize(message))}`;
    if (this.#live) this.#live.message(line);
    else this.#deps.io.stderr.write(line + '\n');
  }

  /** A job that cannot be read: its error, in the run's error format (above the block on a terminal). */
  failed(error: CrawlError): void {
    // Through the block's own writes, so the block is not torn: the same words as report().
    if (this.#live) this.#live.message(`crawl: ${this.#deps.redactor.redact(error.message)}`);
    else this.#deps.report(error);
  }

  /** The watch has ended: polls still on the wire then show and write nothing. */
  get stopped(): boolean {
    return this.#stopped;
  }

  stop(): void {
    this.#stopped = true;
    this.#live?.stop();
  }

  #block(text: TerminalText): string {
    const room = this.#deps.io.stderrColumns - 1;
    const rows = Math.max(1, this.#deps.io.stderrRows - 1);
    const spinner = SPINNER[this.#frame++ % SPINNER.length] as string;
    let shown: readonly Watched[] = this.#watched;
    let summary: string | undefined;
    if (shown.length > rows) {
      // The jobs still going first (they change), then as many finished ones as fit.
      const ordered = [...shown.filter((w) => !w.done), ...shown.filter((w) => w.done)];
      shown = ordered.slice(0, rows - 1);
      summary = text.truncate(this.#summary(ordered.slice(rows - 1)), room);
    }
    // Columns: the ids, the statuses and the counts of the lines shown are padded to the widest,
    // so the bars and the times line up.
    const cells = shown.map((w) => ({
      id: sanitize(w.id),
      status: w.job ? sanitize(w.job.status) : '',
      progress: w.job ? formatProgress(w.job.pagesFinished, w.job.pagesTotal, this.#count) : '',
    }));
    const widest = (pick: (cell: (typeof cells)[number]) => string): number => Math.max(0, ...cells.map((cell) => text.width(pick(cell))));
    const pad = (value: string, width: number): string => value + ' '.repeat(Math.max(0, width - text.width(value)));
    const widths = { id: widest((c) => c.id), status: widest((c) => c.status), progress: widest((c) => c.progress) };
    const lines = shown.map((w, i) => {
      const cell = cells[i] ?? { id: '', status: '', progress: '' };
      return this.#lineOf(w, spinner, room, text, { id: pad(cell.id, widths.id), status: pad(cell.status, widths.status), progress: pad(cell.progress, widths.progress) });
    });
    if (summary !== undefined) lines.push(summary);
    return lines.join('\n');
  }

  #lineOf(w: Watched, spinner: string, room: number, text: TerminalText, cell: { id: string; status: string; progress: string }): string {
    const { id } = cell;
    if (w.failed) return text.truncate(`✗ ${id} ${this.#style.red(`failed (${w.failed.httpStatus === undefined ? 'error' : `HTTP ${w.failed.httpStatus}`})`)}`, room);
    const job = w.job;
    if (!job) return text.truncate(`${spinner} ${id} ${this.#style.dim('waiting for the first answer')}`, room);
    // A finished job's time stops when it was seen to end.
    const elapsed = formatElapsed((w.endedAt ?? this.#deps.clock.now()) - this.#started);
    const status = sanitize(job.status);
    return fitWatchLine(
      {
        spinner: isTerminal(job.status) ? ' ' : spinner,
        status: `${id} ${this.#style.status(status)}${cell.status.slice(status.length)}`,
        bar: toCount(job.pagesTotal) ? progressBar(percentDone(job.pagesFinished, job.pagesTotal), 20) : undefined,
        progress: cell.progress,
        elapsed,
      },
      room,
      text,
    ).trimEnd();
  }

  /** `+ 812 more: 790 completed, 20 running, 2 failed` */
  #summary(rest: readonly Watched[]): string {
    const counts = new Map<string, number>();
    for (const w of rest) {
      const status = w.failed ? 'failed' : w.job ? sanitize(w.job.status) : 'waiting';
      counts.set(status, (counts.get(status) ?? 0) + 1);
    }
    return `  + ${rest.length} more: ${[...counts].map(([status, n]) => `${n} ${status}`).join(', ')}`;
  }
}

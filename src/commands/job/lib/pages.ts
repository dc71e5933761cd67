import { getJob, type JobResponse } from '../../../api/jobs.js';
import { inlinePages, readPageBatches } from '../../../api/pages.js';
import type { Deps } from '../../../deps.js';
import { CrawlError, FilterError, FilterHalt, InterruptedError } from '../../../errors.js';
import { ExitCode } from '../../../exit-codes.js';
import type { HttpClient } from '../../../http/client.js';
import { formatProgress, toCount } from '../../../text/format.js';
import { LiveLine } from '../../../io/live-line.js';
import { loadTerminalText, type TerminalText } from '../../../io/terminal-text.js';
import {
  abandonOutputFile,
  beginOutputFile,
  openOutputFile,
  ReaderWaitInterrupted,
  RecordSink,
  type OutputFile,
} from '../../../io/record-sink.js';
import { OutputClosedError, OutputWriteError } from '../../../io/write-error.js';
import { groupDigits } from '../../../text/locale.js';
import { sanitize } from '../../../text/sanitize.js';
import { withinDeadline } from '../../../platform/deadline.js';
import { pipeBufferSize } from '../../../platform/platform.js';
import { followJob, stillRunning } from './follow.js';
import { crawlCommand } from '../../shared/suggest.js';
import { rememberJob } from '../../shared/job-history.js';

export interface PagesOptions {
  id: string;
  wait: boolean;
  /** Stop after this many records. */
  limit?: number | undefined;
  /** A file instead of stdout. */
  output?: string | undefined;
  intervalMs: number;
  maxWaitMs?: number | undefined;
  /** The command's own flags as given (`--output`, `x.ndjson`, ...), for a command suggested to run it again. */
  given?: readonly string[] | undefined;
}

/** How often the live progress line is redrawn at most, and a plain one (TERM=dumb) written. */
const LIVE_REDRAW_MS = 100;
const PLAIN_LINE_MS = 5_000;

export async function jobPagesRun(deps: Deps, options: PagesOptions): Promise<number> {
  // --max-wait counts from the start: a first answer that never comes is waited for no longer.
  const deadline = options.wait && options.maxWaitMs !== undefined ? deps.clock.now() + options.maxWaitMs : undefined;
  // Interrupted, the run says what the file holds: a second signal (`timeout` sends SIGTERM to
  // crawl and then to its group) must not end the process between the first and that line. Held
  // before the file exists: two signals while it is being created would otherwise leave it empty
  // with nothing said.
  const release = options.output === undefined ? undefined : deps.guard.holdOnceAborted(deps.signal);
  try {
    const http = await deps.http();
    // Opened before any request: a missing folder or a read-only file fails at once.
    const file = options.output === undefined ? undefined : await openOutputFile(options.output);
    let response: JobResponse;
    try {
      response = await readyJob(deps, http, options, deadline);
      if (file) await beginOutputFile(file, { interrupt: deps.signal, clock: deps.clock, notice: deps.globals.json ? undefined : (line) => deps.io.stderr.write(`crawl: ${line}\n`) });
    } catch (error) {
      if (file) await abandonOutputFile(file);
      if (error instanceof ReaderWaitInterrupted) throw interruptedWith(error.interruption, `${error.message}; nothing was written`);
      // Ctrl-C while --wait watches the job: say so, rather than end on the watch's last line.
      if (file && error instanceof InterruptedError) throw interruptedWith(error, `interrupted before the export began: nothing was written to ${file.path}`);
      throw error;
    }
    // Records go out unredacted and fast: the HTTP layer has already redacted every body they come from.
    const sink = file ? await RecordSink.toFile(file, deps.signal, pipeBufferSize(deps.platform)) : RecordSink.toStream(deps.io.rawStdout, deps.signal);
    sink.filter = deps.jq;
    return await exportPages(deps, http, response, sink, options, file);
  } finally {
    // The message is made: the report that follows has the exit's grace, as after any section.
    release?.();
  }
}

/** The job, once its pages can be read: at once if it has finished, after watching with --wait. */
async function readyJob(deps: Deps, http: HttpClient, options: PagesOptions, deadline: number | undefined): Promise<JobResponse> {
  const response = await withinDeadline(deps.clock, deadline, getJob(http, options.id), () => stillRunning(undefined));
  rememberJob(deps, options.id);
  const { job } = response;
  // Unknown statuses are exported as they are: the service may well have pages for them.
  if (job.status !== 'pending' && job.status !== 'running') return response;
  if (!options.wait) {
    // Pasted, it prints what this run would: the filter (which implies --json), or --json.
    const printing = deps.globals.jq !== undefined ? ['--jq', deps.globals.jq] : deps.globals.json ? ['--json'] : [];
    throw new CrawlError(
      `job ${job.id} is still ${job.status}, ${formatProgress(job.pagesFinished, job.pagesTotal)}: its pages are exported once it has finished`,
      ExitCode.usage,
      { hint: `wait for it with \`${crawlCommand(deps, ['job', 'pages'], [options.id], [...(options.given ?? []), ...printing, '--wait'])}\`` },
    );
  }
  return followJob(deps, http, options.id, { intervalMs: options.intervalMs, deadline, ndjson: false });
}

async function exportPages(
  deps: Deps,
  http: HttpClient,
  response: JobResponse,
  sink: RecordSink,
  options: PagesOptions,
  file: OutputFile | undefined,
): Promise<number> {
  const { job } = response;
  const expected = expectedRecords(response, options.limit);
  if (job.status !== 'completed' && deps.io.stderrIsTTY) {
    deps.io.stderr.write(`Job ${sanitize(job.id)} is ${sanitize(job.status)}: exporting the pages it has.\n`);
  }
  const progress = file && deps.io.stderrIsTTY ? await ExportProgress.create(deps, file.path, expected) : undefined;
  const release = progress ? deps.guard.onCleanup(() => progress.stop()) : undefined;
  try {
    const inline = inlinePages(response);
    // Pages the service sent short of what the job says it has, said after the export ends.
    let short: string | undefined;
    if (inline) {
      // Trusted (the service documents the array as all the pages), but never silently short.
      short = shortWarning(deps, inline.sent, inline.total, (sent, total) => `the service sent ${sent} of the job's ${total} pages inline`);
      if (inline.records) await sink.writeArray(inline.text, inline.records, options.limit);
    } else {
      await preferSmallHeap();
      let read = 0;
      for await (const batch of readPageBatches(http, options.id, { max: options.limit })) {
        await sink.writeArray(batch.text, batch.records, batch.take);
        read += batch.take;
        progress?.update(sink.written);
      }
      // Batches that ended on their own (not at --limit) short of a completed job's count are as
      // short as an inline array. Errored and cancelled jobs export whatever pages they have.
      const cut = options.limit !== undefined && read >= options.limit;
      if (job.status === 'completed' && !cut) {
        short = shortWarning(deps, read, toCount(job.pagesTotal), (got, total) => `the service's pages ended after ${got} of the job's ${total} pages`);
      }
    }
    await sink.close();
    progress?.update(sink.written, true);
    // Below the progress line, which is kept.
    progress?.stop();
    if (short !== undefined) deps.io.stderr.write(short);
    return ExitCode.ok;
  } catch (error) {
    // `| head -1`: the reader has what it wanted. Stop quietly.
    if (error instanceof OutputClosedError) return ExitCode.ok;
    if (error instanceof InterruptedError) {
      await sink.abandon();
      throw file ? interruptedWith(error, interruptedMessage(sink, file, groupDigits(deps.env))) : error;
    }
    // Whatever failed, what was written stays written: flush it before saying how much. A file
    // that no record reached yet is closed as it was, not emptied, unless the filter ended the
    // export well (`halt`, exit 0): the file then holds what it printed, nothing.
    const endedWell = error instanceof FilterHalt && error.exitCode === ExitCode.ok;
    if (sink.untouched && !endedWell) await sink.abandon();
    else await sink.close().catch(() => undefined);
    throw withCount(error, sink, groupDigits(deps.env));
  } finally {
    progress?.stop();
    release?.();
  }
}

/**
 * `crawl: warning: ...` when an export got fewer pages than the job's count says, in the locale's
 * grouping; undefined when it got them all, or the count is missing or no sane number.
 */
function shortWarning(deps: Deps, got: number, total: number | undefined, says: (got: string, total: string) => string): string | undefined {
  if (total === undefined || !Number.isSafeInteger(total) || got >= total) return undefined;
  const count = groupDigits(deps.env);
  return `crawl: warning: ${says(count(got), count(total))}\n`;
}

/** An interruption that says what it left behind (exit 130 or 143 all the same). */
function interruptedWith(interruption: unknown, message: string): CrawlError {
  const code = interruption instanceof InterruptedError ? interruption.exitCode : ExitCode.interrupted;
  return new CrawlError(message, code, { cause: interruption });
}

/** Counts as the progress line writes them (`count`, the locale's grouping): one number, one format. */
function interruptedMessage(sink: RecordSink, file: OutputFile, count: (n: number) => string): string {
  const noun = sink.written === 1 ? 'record' : 'records';
  if (sink.untouched) return `interrupted before the first record came: ${file.path} was left as it was`;
  if (file.kind === 'file' && sink.written === 0) return `interrupted before the first record came: ${file.path} is empty`;
  if (file.kind === 'file') return `interrupted: ${file.path} holds the first ${count(sink.written)} ${noun}, each line whole`;
  // A pipe may have taken one more piece than it confirmed before the process stopped.
  return `interrupted: at least ${count(sink.written)} ${noun} went to ${file.path}, each line whole`;
}

/**
 * A long export allocates a batch's worth of short-lived strings and buffers per request, and V8's
 * default heap growth lets the young and old generations swell with that garbage. With this flag
 * the heap stays small, for no time that the benchmark (npm run bench) can see. Set at run time,
 * it applies from the next collection on.
 */
async function preferSmallHeap(): Promise<void> {
  // Loaded here: `job --help` loads this module, and node:v8 is not free.
  const { setFlagsFromString } = await import('node:v8');
  setFlagsFromString('--optimize-for-size');
}

/** How many records the export should produce, for the progress line. */
function expectedRecords(response: JobResponse, limit: number | undefined): number | undefined {
  const { job } = response;
  const total = job.status === 'completed' ? toCount(job.pagesTotal) : toCount(job.pagesFinished);
  if (limit === undefined) return total;
  return total === undefined ? limit : Math.min(total, limit);
}

function withCount(error: unknown, sink: RecordSink, count: (n: number) => string): unknown {
  // The file itself failed: say what it holds (the sink cut it back to whole records).
  if (error instanceof OutputWriteError && sink.path !== undefined && sink.written > 0) {
    const noun = sink.written === 1 ? 'record is' : 'records are';
    return new OutputWriteError(`${error.message} (the first ${count(sink.written)} ${noun} in the file, each line whole)`, error);
  }
  // The filter's error: the records it printed are what the reader sees, not the records read.
  if (error instanceof InterruptedError || error instanceof OutputWriteError || error instanceof FilterError || !(error instanceof CrawlError)) return error;
  const where = sink.path === undefined ? '' : ` to ${sink.path}`;
  const noun = sink.written === 1 ? 'record' : 'records';
  const said = sink.untouched ? `nothing was written: ${sink.path} was left as it was` : `wrote ${count(sink.written)} ${noun}${where} before the failure`;
  return new CrawlError(`${error.message} (${said})`, error.exitCode, {
    ...(error.httpStatus === undefined ? {} : { httpStatus: error.httpStatus }),
    ...(error.hint === undefined ? {} : { hint: error.hint }),
    cause: error,
  });
}

/**
 * `Writing out.ndjson: 2345/1000000 records (0%)` on a terminal's stderr: one line redrawn at most
 * 10 times a second, cut to the terminal's width (the file's name loses its beginning) so it
 * never wraps into rows a redraw cannot clear. On a TERM=dumb terminal, which cannot redraw, a
 * plain line every few seconds of the run's clock instead, and the last one.
 */
class ExportProgress {
  readonly #deps: Deps;
  readonly #line: LiveLine | undefined;
  readonly #text: TerminalText | undefined;
  readonly #label: string;
  readonly #expected: number | undefined;
  readonly #count: (n: number) => string;
  #lastDraw: number | undefined;

  static async create(deps: Deps, path: string, expected: number | undefined): Promise<ExportProgress> {
    return new ExportProgress(deps, path, expected, deps.io.stderrLive ? await loadTerminalText() : undefined);
  }

  private constructor(deps: Deps, path: string, expected: number | undefined, text: TerminalText | undefined) {
    this.#deps = deps;
    this.#text = text;
    this.#line = text ? new LiveLine(deps.io.stderr, { columns: () => deps.io.stderrColumns, width: (line) => text.width(line) }) : undefined;
    this.#label = sanitize(path);
    this.#expected = expected;
    this.#count = groupDigits(deps.env);
    // Plain lines start after the first interval: a short export says only what it wrote.
    if (!this.#line) this.#lastDraw = deps.clock.now();
  }

  update(written: number, final = false): void {
    const now = this.#deps.clock.now();
    const every = this.#line ? LIVE_REDRAW_MS : PLAIN_LINE_MS;
    if (!final && this.#lastDraw !== undefined && now - this.#lastDraw < every) return;
    this.#lastDraw = now;
    const progress = formatProgress(written, this.#expected, this.#count).replace(' pages', ' records');
    const verb = final ? 'Wrote' : 'Writing';
    if (!this.#line || !this.#text) {
      this.#deps.io.stderr.write(`${verb} ${this.#label}: ${progress}\n`);
      return;
    }
    // The cursor's column would wrap a line exactly as wide as the terminal on some terminals.
    const room = this.#deps.io.stderrColumns - 1;
    const fixed = this.#text.width(`${verb} : ${progress}`);
    const label = this.#text.truncate(this.#label, Math.max(1, room - fixed), 'start');
    this.#line.update(this.#text.truncate(`${verb} ${label}: ${progress}`, room));
  }

  stop(): void {
    this.#line?.done(true);
  }
}

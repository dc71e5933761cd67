import { setFlagsFromString } from 'node:v8';
import { getJob, inlinePagesSpan, type JobResponse } from '../../api/jobs.js';
import { readPageBatches } from '../../api/pages.js';
import type { Context } from '../../app/factory.js';
import { parseInteger, parseWaitFlags } from '../shared/flags.js';
import { CrawlError, InterruptedError, UsageError } from '../../errors.js';
import { ExitCode } from '../../exit-codes.js';
import type { HttpClient } from '../../http/client.js';
import { formatProgress, toCount } from '../../text/format.js';
import { LiveLine } from '../../io/live-line.js';
import {
  abandonOutputFile,
  beginOutputFile,
  openOutputFile,
  OutputClosedError,
  ReaderWaitInterrupted,
  RecordSink,
  type OutputFile,
} from '../../io/record-sink.js';
import { OutputWriteError } from '../../io/write-error.js';
import { sanitize } from '../../text/sanitize.js';
import { followJob, stillRunning, withinDeadline } from './lib/follow.js';
import { crawlCommand } from '../shared/suggest.js';

export interface PagesOptions {
  id: string;
  wait: boolean;
  /** Stop after this many records. */
  limit?: number | undefined;
  /** A file instead of stdout. */
  output?: string | undefined;
  intervalMs: number;
  maxWaitMs?: number | undefined;
}

/** The service sends pages inline only for completed jobs of at most this many pages. */
const INLINE_LIMIT = 100;

/**
 * Every page of a job as NDJSON, in order, written as it arrives. Pending or running jobs need
 * --wait (which watches first); errored and cancelled jobs export what they have. On a failure
 * midway the records written stay written, and the message says how many.
 */
export async function runPages(ctx: Context, options: PagesOptions): Promise<number> {
  // --max-wait counts from the start: a first answer that never comes is waited for no longer.
  const deadline = options.wait && options.maxWaitMs !== undefined ? ctx.now() + options.maxWaitMs : undefined;
  const http = ctx.http();
  // Opened before any request: a missing folder or a read-only file fails at once.
  const file = options.output === undefined ? undefined : await openOutputFile(options.output);
  let response: JobResponse;
  try {
    response = await readyJob(ctx, http, options, deadline);
    if (file) await beginOutputFile(file, { interrupt: ctx.interrupt, notice: ctx.globals.json ? undefined : (line) => ctx.io.stderr.write(`crawl: ${line}\n`) });
  } catch (error) {
    if (file) await abandonOutputFile(file);
    if (error instanceof ReaderWaitInterrupted) throw interruptedWith(error.interruption, `${error.message}; nothing was written`);
    throw error;
  }
  // Records go out unredacted and fast: the HTTP layer has already redacted every body they come from.
  const sink = file ? await RecordSink.toFile(file, ctx.interrupt) : RecordSink.toStream(ctx.io.rawStdout, ctx.interrupt);
  return exportPages(ctx, http, response, sink, options, file);
}

/** The job, once its pages can be read: at once if it has finished, after watching with --wait. */
async function readyJob(ctx: Context, http: HttpClient, options: PagesOptions, deadline: number | undefined): Promise<JobResponse> {
  const response = await withinDeadline(ctx, deadline, getJob(http, options.id), () => stillRunning(undefined));
  const { job } = response;
  // Unknown statuses are exported as they are: the service may well have pages for them.
  if (job.status !== 'pending' && job.status !== 'running') return response;
  if (!options.wait) {
    throw new CrawlError(
      `job ${job.id} is still ${job.status}, ${formatProgress(job.pagesFinished, job.pagesTotal)}: its pages are exported once it has finished`,
      ExitCode.usage,
      { hint: `wait for it with \`${crawlCommand(ctx, ['job', 'pages'], [options.id], ['--wait'])}\`` },
    );
  }
  return followJob(ctx, http, options.id, { intervalMs: options.intervalMs, deadline, ndjson: false });
}

async function exportPages(
  ctx: Context,
  http: HttpClient,
  response: JobResponse,
  sink: RecordSink,
  options: PagesOptions,
  file: OutputFile | undefined,
): Promise<number> {
  const { job, pages } = response;
  const expected = expectedRecords(response, options.limit);
  if (job.status !== 'completed' && ctx.io.stderrIsTTY) {
    ctx.io.stderr.write(`Job ${sanitize(job.id)} is ${sanitize(job.status)}: exporting the pages it has.\n`);
  }
  const progress = file && ctx.io.stderrIsTTY ? new ExportProgress(ctx, file.path, expected) : undefined;
  const release = progress ? ctx.onCleanup(() => progress.stop()) : undefined;
  try {
    const inline = job.status === 'completed' && pages !== undefined && (toCount(job.pagesTotal) ?? pages.length) <= INLINE_LIMIT;
    if (inline) {
      const total = toCount(job.pagesTotal);
      // Trusted (the service documents the array as all the pages), but never silently short.
      if (total !== undefined && pages.length < total) {
        ctx.io.stderr.write(`crawl: warning: the service sent ${pages.length} of the job's ${total} pages inline\n`);
      }
      const span = inlinePagesSpan(response.raw);
      if (span) await sink.writeArray(response.raw, span, options.limit);
    } else {
      preferSmallHeap();
      for await (const batch of readPageBatches(http, options.id, { max: options.limit })) {
        await sink.writeArray(batch.text, batch.records, batch.take);
        progress?.update(sink.written);
      }
    }
    await sink.close();
    progress?.update(sink.written, true);
    return ExitCode.ok;
  } catch (error) {
    // `| head -1`: the reader has what it wanted. Stop quietly.
    if (error instanceof OutputClosedError) return ExitCode.ok;
    if (error instanceof InterruptedError) {
      await sink.abandon();
      throw file ? interruptedWith(error, interruptedMessage(sink, file)) : error;
    }
    // Whatever failed, what was written stays written: flush it before saying how much.
    await sink.close().catch(() => undefined);
    throw withCount(error, sink);
  } finally {
    progress?.stop();
    release?.();
  }
}

/** An interruption that says what it left behind (exit 130 or 143 all the same). */
function interruptedWith(interruption: unknown, message: string): CrawlError {
  const code = interruption instanceof InterruptedError ? interruption.exitCode : ExitCode.interrupted;
  return new CrawlError(message, code, { cause: interruption });
}

function interruptedMessage(sink: RecordSink, file: OutputFile): string {
  const noun = sink.written === 1 ? 'record' : 'records';
  if (file.kind === 'file') return `interrupted: ${file.path} holds the first ${sink.written} ${noun}, each line whole`;
  // A pipe may have taken one more piece than it confirmed before the process stopped.
  return `interrupted: at least ${sink.written} ${noun} went to ${file.path}, each line whole`;
}

/**
 * A long export allocates a batch's worth of short-lived strings and buffers per request, and V8's
 * default heap growth lets the young and old generations swell with that garbage. With this flag
 * the heap stays small, for no time that the benchmark (npm run bench) can see. Set at run time,
 * it applies from the next collection on.
 */
function preferSmallHeap(): void {
  setFlagsFromString('--optimize-for-size');
}

/** How many records the export should produce, for the progress line. */
function expectedRecords(response: JobResponse, limit: number | undefined): number | undefined {
  const { job } = response;
  const total = job.status === 'completed' ? toCount(job.pagesTotal) : toCount(job.pagesFinished);
  if (limit === undefined) return total;
  return total === undefined ? limit : Math.min(total, limit);
}

function withCount(error: unknown, sink: RecordSink): unknown {
  // The file itself failed: say what it holds (the sink cut it back to whole records).
  if (error instanceof OutputWriteError && sink.path !== undefined && sink.written > 0) {
    const noun = sink.written === 1 ? 'record is' : 'records are';
    return new OutputWriteError(`${error.message} (the first ${sink.written} ${noun} in the file, each line whole)`, error);
  }
  if (error instanceof InterruptedError || error instanceof OutputWriteError || !(error instanceof CrawlError)) return error;
  const where = sink.path === undefined ? '' : ` to ${sink.path}`;
  const noun = sink.written === 1 ? 'record' : 'records';
  return new CrawlError(`${error.message} (wrote ${sink.written} ${noun}${where} before the failure)`, error.exitCode, {
    ...(error.httpStatus === undefined ? {} : { httpStatus: error.httpStatus }),
    ...(error.hint === undefined ? {} : { hint: error.hint }),
    cause: error,
  });
}

/** `Writing out.ndjson: 2345/1000000 records (0%)` on a terminal's stderr, redrawn at most 10 times a second. */
class ExportProgress {
  readonly #ctx: Context;
  readonly #line: LiveLine;
  readonly #label: string;
  readonly #expected: number | undefined;
  #lastDraw = 0;

  constructor(ctx: Context, path: string, expected: number | undefined) {
    this.#ctx = ctx;
    this.#line = new LiveLine(ctx.io.stderr);
    this.#label = sanitize(path);
    this.#expected = expected;
  }

  update(written: number, final = false): void {
    const now = this.#ctx.now();
    if (!final && now - this.#lastDraw < 100) return;
    this.#lastDraw = now;
    const progress = formatProgress(written, this.#expected).replace(' pages', ' records');
    this.#line.update(`${final ? 'Wrote' : 'Writing'} ${this.#label}: ${progress}`);
  }

  stop(): void {
    this.#line.done(true);
  }
}

export async function handler(ctx: Context, args: string[], opts: Record<string, unknown>): Promise<number> {
  const wait = opts.wait === true;
  const waitFlags = parseWaitFlags(opts, wait);
  let output = typeof opts.output === 'string' ? opts.output : undefined;
  if (output === '') throw new UsageError('--output needs a file name ("-" for standard output)');
  // `-` is standard output, as for most tools that take a file.
  if (output === '-') output = undefined;
  return runPages(ctx, {
    id: args[0] ?? '',
    wait,
    limit: opts.limit === undefined ? undefined : parseInteger(opts.limit, '--limit', 1),
    output,
    ...waitFlags,
  });
}

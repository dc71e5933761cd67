import { getJob, terminalExitCode, type Job, type JobResponse } from '../../../api/jobs.js';
import type { Deps } from '../../../deps.js';
import { CrawlError, InterruptedError, isCrawlError } from '../../../errors.js';
import { ExitCode } from '../../../exit-codes.js';
import { writeNdjson } from '../../../io/json.js';
import { sanitize } from '../../../text/sanitize.js';
import { worstOutcome, type Outcome } from './outcome.js';
import { printJobRows } from './rows.js';

/** Requests in flight at once: enough to overlap round trips, few enough not to flood the service. */
export const CONCURRENT_READS = 8;

/**
 * `job status a b c`: each job read once (a few at a time, on the run's one connection pool), then
 * a row each, or NDJSON with --json (each body as received, in the order given). An id that cannot
 * be read is reported on its own; the others are still shown. The exit code: the first such
 * failure's; else, with --exit-status, the worst status (outcome.ts); else 0.
 */
export async function showStatuses(deps: Deps, ids: readonly string[], exitStatus: boolean): Promise<number> {
  const http = await deps.http();
  type Read = { id: string; response: JobResponse; error?: undefined } | { id: string; error: CrawlError };
  const results = await mapLimit(ids, CONCURRENT_READS, async (id): Promise<Read> => {
    try {
      return { id, response: await getJob(http, id) };
    } catch (error) {
      if (error instanceof InterruptedError || !isCrawlError(error)) throw error;
      return { id, error };
    }
  });
  const jobs: Job[] = [];
  // Pending, running or a status we do not know: not finished, which is what exit 7 means elsewhere.
  const outcomes: Outcome[] = results.map((r) => (r.error !== undefined ? { kind: 'failed', code: r.error.exitCode } : { kind: 'job', code: terminalExitCode(r.response.job.status) ?? ExitCode.waitElapsed }));
  // Every status was read: a reader gone before they are printed (`| true`) changes none of them,
  // nor the code of an id that could not be read, which is the exit code with or without --exit-status.
  if (exitStatus || outcomes.some((o) => o.kind === 'failed')) deps.exitIfReaderLeaves(worstOutcome(outcomes));
  for (const result of results) {
    if (result.error !== undefined) {
      deps.report(new CrawlError(`job ${sanitize(result.id)}: ${result.error.message}`, result.error.exitCode, result.error.httpStatus === undefined ? {} : { httpStatus: result.error.httpStatus }));
      continue;
    }
    const { job, raw } = result.response;
    if (deps.globals.json) writeNdjson(deps.io.stdout, raw);
    jobs.push(job);
  }
  if (!deps.globals.json && jobs.length > 0) await printJobRows(deps, jobs);
  const worst = worstOutcome(outcomes);
  if (outcomes.some((o) => o.kind === 'failed')) return worst;
  return exitStatus ? worst : ExitCode.ok;
}

/** `work` over `items`, at most `limit` at a time, the results in the items' order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < items.length; i = next++) results[i] = await work(items[i] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

import type { Deps } from '../../../deps.js';
import { terminalExitCode } from '../../../api/jobs.js';
import { isCrawlError } from '../../../errors.js';
import { ExitCode } from '../../../exit-codes.js';
import { followJob } from './follow.js';
import { printJob } from './view.js';
import { rememberJob } from '../../shared/job-history.js';
import { watchJobs } from './watch-many.js';

export interface WatchOptions {
  ids: string[];
  intervalMs: number;
  maxWaitMs?: number | undefined;
  failFast: boolean;
}

export async function jobWatchRun(deps: Deps, options: WatchOptions): Promise<number> {
  const [id, ...more] = options.ids;
  if (id === undefined || more.length > 0) return watchJobs(deps, options.ids, { intervalMs: options.intervalMs, maxWaitMs: options.maxWaitMs, failFast: options.failFast });
  const http = await deps.http();
  // A reader gone while the job still runs (`--json | head -1`) must not read as "completed".
  deps.exitIfReaderLeaves(ExitCode.failure);
  const { job } = await followJob(deps, http, id, {
    intervalMs: options.intervalMs,
    maxWaitMs: options.maxWaitMs,
    ndjson: deps.globals.json,
  }).catch((error: unknown) => {
    // The watch ended with its own error (--max-wait: 7, or the code of a job never read): a reader
    // that leaves as it is said gets that code too. Not when the reader's leaving ended it.
    if (isCrawlError(error) && !deps.signal.aborted) deps.exitIfReaderLeaves(error.exitCode);
    throw error;
  });
  const code = terminalExitCode(job.status) ?? ExitCode.failure;
  deps.exitIfReaderLeaves(code);
  rememberJob(deps, id);
  if (!deps.globals.json) await printJob(deps, job, { pagesHint: true });
  return code;
}

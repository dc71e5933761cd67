import { getJob, isTerminal, requestCancel, terminalExitCode, type CancelAnswer, type JobResponse } from '../../../api/jobs.js';
import type { Deps } from '../../../deps.js';
import { CrawlError } from '../../../errors.js';
import { ExitCode } from '../../../exit-codes.js';
import type { HttpClient } from '../../../http/client.js';
import { answeredUnread, HttpStatusError } from '../../../http/errors.js';
import { sanitize } from '../../../text/sanitize.js';
import { followJob } from './follow.js';
import { writeNdjson, writeRaw } from '../../../io/json.js';
import { printJob } from './view.js';
import { crawlCommand } from '../../shared/suggest.js';
import { rememberJob } from '../../shared/job-history.js';

export interface CancelOptions {
  id: string;
  wait: boolean;
  intervalMs: number;
  maxWaitMs?: number | undefined;
}

export async function jobCancelRun(deps: Deps, options: CancelOptions): Promise<number> {
  const http = await deps.http();
  const json = deps.globals.json;
  const deleted = await sendCancel(deps, http, options.id);
  rememberJob(deps, options.id);
  const fromDelete = deleted.job;
  const deleteRaw = deleted.body?.raw;

  if (!options.wait) {
    // --json shows the DELETE's answer when it has one: then the job is not fetched at all.
    if (json && deleteRaw !== undefined) {
      writeRaw(deps.io.stdout, deleteRaw);
      return ExitCode.ok;
    }
    const current = fromDelete ?? (await getJob(http, options.id));
    if (json) writeRaw(deps.io.stdout, current.raw);
    else await report(deps, current);
    return ExitCode.ok;
  }

  // --json --wait is a stream, like `job watch --json`: the DELETE's body, then each changed job.
  if (json && deleteRaw !== undefined) writeNdjson(deps.io.stdout, deleteRaw);
  if (!json && deps.io.stderrIsTTY) deps.io.stderr.write(`Cancellation of job ${sanitize(options.id)} requested; waiting for it to stop...\n`);
  const final = await followJob(deps, http, options.id, { intervalMs: options.intervalMs, maxWaitMs: options.maxWaitMs, ndjson: json });
  const { status } = final.job;
  if (!json) await printJob(deps, final.job, { pagesHint: false });
  if (status === 'cancelled_by_user') return ExitCode.ok;
  throw new CrawlError(`the job ended ${status} before the cancellation took effect`, terminalExitCode(status) ?? ExitCode.failure);
}

/** The DELETE, never retried (the HTTP layer retries GETs only); its failures say what to do next. */
async function sendCancel(deps: Deps, http: HttpClient, id: string): Promise<CancelAnswer> {
  const statusCommand = (): string => crawlCommand(deps, ['job', 'status'], [id]);
  try {
    return await requestCancel(http, id);
  } catch (error) {
    if (error instanceof HttpStatusError) {
      const detail = error.serverMessage ? `: ${error.serverMessage}` : '';
      const hint = error.hint ?? (error.status === 409 ? `see where it stands with \`${statusCommand()}\`` : undefined);
      throw new CrawlError(`cannot cancel job ${id}: HTTP ${error.status}${detail}`, error.exitCode, {
        httpStatus: error.status,
        ...(hint === undefined ? {} : { hint }),
        cause: error,
      });
    }
    if (answeredUnread(error)) {
      throw new CrawlError(error.message, error.exitCode, {
        hint: `the cancellation may have reached the service: check with \`${statusCommand()}\``,
        cause: error,
      });
    }
    throw error;
  }
}

async function report(deps: Deps, current: JobResponse): Promise<void> {
  const { job } = current;
  await printJob(deps, job, { pagesHint: false });
  if (!isTerminal(job.status)) {
    deps.io.stderr.write(
      `Cancellation requested; the job is still ${sanitize(job.status)}. Follow it with \`${crawlCommand(deps, ['job', 'watch'], [job.id])}\`.\n`,
    );
  }
}

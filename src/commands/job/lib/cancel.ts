import { getJob, isTerminal, requestCancel, terminalExitCode, type CancelAnswer, type JobResponse } from '../../../api/jobs.js';
import type { Deps } from '../../../deps.js';
import { CrawlError, InterruptedError } from '../../../errors.js';
import { ExitCode } from '../../../exit-codes.js';
import type { HttpClient } from '../../../http/client.js';
import { answeredUnread, HttpStatusError } from '../../../http/errors.js';
import { sanitize } from '../../../text/sanitize.js';
import { followJob } from './follow.js';
import { writeJson, writeNdjson } from '../../../io/json.js';
import { printJob } from './view.js';
import { crawlCommand } from '../../shared/suggest.js';
import { fitCommandHint } from '../../shared/examples.js';
import { loadTerminalText } from '../../../io/terminal-text.js';
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
  if ('already' in deleted) return alreadyCancelled(deps, deleted.already, options);
  const fromDelete = deleted.job;
  const deleteRaw = deleted.body?.raw;

  if (!options.wait) {
    // --json shows the DELETE's answer when it has one: then the job is not fetched at all.
    if (json && deleteRaw !== undefined) {
      writeJson(deps.io, deleteRaw);
      return ExitCode.ok;
    }
    const current = fromDelete ?? (await getJob(http, options.id));
    if (json) writeJson(deps.io, current.raw);
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

/**
 * The DELETE, never retried (the HTTP layer retries GETs only); its failures say what to do next.
 * The service answers 409 for every job that has ended: the job is read then, and one the user
 * had already cancelled is the outcome asked for (a script making sure a job is stopped goes on);
 * one that completed, failed or was cancelled by the service stays a failure, its status named.
 */
async function sendCancel(deps: Deps, http: HttpClient, id: string): Promise<CancelAnswer | { already: JobResponse }> {
  const statusCommand = (): string => crawlCommand(deps, ['job', 'status'], [id]);
  try {
    return await requestCancel(http, id);
  } catch (error) {
    if (error instanceof HttpStatusError) {
      const ended = error.status === 409 ? await endedJob(http, id) : undefined;
      if (ended?.job.status === 'cancelled_by_user') return { already: ended };
      const detail = error.serverMessage ? `: ${error.serverMessage}` : '';
      const status = ended && !detail.includes(ended.job.status) ? ` (the job is ${sanitize(ended.job.status)})` : '';
      const hint = error.hint ?? (error.status === 409 ? `see where it stands with \`${statusCommand()}\`` : undefined);
      throw new CrawlError(`cannot cancel job ${id}: HTTP ${error.status}${detail}${status}`, error.exitCode, {
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

/** The job after a 409, when it has ended; undefined when it cannot be read or has not (a conflict of another kind). */
async function endedJob(http: HttpClient, id: string): Promise<JobResponse | undefined> {
  try {
    const current = await getJob(http, id);
    return isTerminal(current.job.status) ? current : undefined;
  } catch (error) {
    if (error instanceof InterruptedError) throw error;
    return undefined;
  }
}

/** Already cancelled by the user: the job as a cancel would show it, a note, and exit 0 (--wait has nothing to wait for). */
async function alreadyCancelled(deps: Deps, current: JobResponse, options: CancelOptions): Promise<number> {
  if (deps.globals.json) {
    if (options.wait) writeNdjson(deps.io.stdout, current.raw);
    else writeJson(deps.io, current.raw);
    return ExitCode.ok;
  }
  await printJob(deps, current.job, { pagesHint: false });
  deps.io.stderr.write(`Job ${sanitize(current.job.id)} was already cancelled: nothing to do.\n`);
  return ExitCode.ok;
}

async function report(deps: Deps, current: JobResponse): Promise<void> {
  const { job } = current;
  await printJob(deps, job, { pagesHint: false });
  if (!isTerminal(job.status)) {
    const command = crawlCommand(deps, ['job', 'watch'], [job.id]);
    const prose = `Cancellation requested; the job is still ${sanitize(job.status)}.`;
    const line = `${prose} Follow it with \`${command}\`.`;
    // On a terminal narrower than the line, fitted to it as the job view above is.
    const width = deps.io.stderrIsTTY ? deps.io.stderrColumns : Infinity;
    const { width: measure } = width === Infinity ? { width: (text: string) => text.length } : await loadTerminalText();
    const lines = measure(line) <= width ? [line] : fitCommandHint(`${prose} Follow it with:`, command, width, measure);
    deps.io.stderr.write(lines.join('\n') + '\n');
  }
}

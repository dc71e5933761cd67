import { getJob, terminalExitCode } from '../../../api/jobs.js';
import type { Deps } from '../../../deps.js';
import { ExitCode } from '../../../exit-codes.js';
import { writeJson } from '../../../io/json.js';
import { showStatuses } from './status-many.js';
import { printJob } from './view.js';
import { rememberJob } from '../../shared/job-history.js';

export interface StatusOptions {
  ids: string[];
  exitStatus: boolean;
}

/** A mistyped command read as an id (`crawl job wtach`) never gets here: job/subcommand-typo.ts refuses it first. */
export async function jobStatusRun(deps: Deps, options: StatusOptions): Promise<number> {
  const [id, ...more] = options.ids;
  if (id === undefined || more.length > 0) return showStatuses(deps, options.ids, options.exitStatus);
  const http = await deps.http();
  const { job, raw } = await getJob(http, id);
  rememberJob(deps, id);
  // Pending, running or a status we do not know: not finished, which is what exit 7 means elsewhere.
  const code = options.exitStatus ? (terminalExitCode(job.status) ?? ExitCode.waitElapsed) : ExitCode.ok;
  // The status was read: a reader gone before it is printed (`| true`) changes nothing of it.
  if (options.exitStatus) deps.exitIfReaderLeaves(code);
  if (deps.globals.json) writeJson(deps.io, raw);
  else await printJob(deps, job, { pagesHint: true });
  return code;
}

import { getJob, terminalExitCode } from '../../../api/jobs.js';
import type { Deps } from '../../../deps.js';
import { ExitCode } from '../../../exit-codes.js';
import { writeRaw } from '../../../io/json.js';
import { showStatuses } from './status-many.js';
import { withTypoHint } from './subcommand-typo.js';
import { printJob } from './view.js';
import { rememberJob } from '../../shared/job-history.js';

export interface StatusOptions {
  ids: string[];
  exitStatus: boolean;
  /** Reached as `crawl job <id>` (the group's default command) rather than by its name. */
  viaDefault: boolean;
}

export async function jobStatusRun(deps: Deps, options: StatusOptions): Promise<number> {
  return withTypoHint(deps, options.viaDefault ? options.ids[0] : undefined, () => showStatus(deps, options));
}

async function showStatus(deps: Deps, options: StatusOptions): Promise<number> {
  const [id, ...more] = options.ids;
  if (id === undefined || more.length > 0) return showStatuses(deps, options.ids, options.exitStatus);
  const http = await deps.http();
  const { job, raw } = await getJob(http, id);
  rememberJob(deps, id);
  if (deps.globals.json) writeRaw(deps.io.stdout, raw);
  else await printJob(deps, job, { pagesHint: true });
  if (!options.exitStatus) return ExitCode.ok;
  // Pending, running or a status we do not know: not finished, which is what exit 7 means elsewhere.
  return terminalExitCode(job.status) ?? ExitCode.waitElapsed;
}

import { Command, Option } from '@commander-js/extra-typings';
import { getJob, terminalExitCode } from '../../api/jobs.js';
import type { Deps } from '../../deps.js';
import { ExitCode } from '../../exit-codes.js';
import { writeRaw } from '../../io/json.js';
import { printJob } from './lib/view.js';

export interface StatusOptions {
  id: string;
  exitStatus: boolean;
}

/**
 * GET /api/crawl/:id and show it. Exit 0 when read; with --exit-status, the job's own code
 * (0 completed, 10-13 failed or cancelled, 7 not finished yet).
 */
export function command(runF: (options: StatusOptions) => Promise<void>) {
  return new Command('status')
    .description('show a job (also `crawl job <id>`)')
    .argument('<id>', 'job id')
    .addOption(new Option('--exit-status', 'exit with the job status code (10 errored, 11-13 cancelled)'))
    .action((id, flags) => runF({ id, exitStatus: flags.exitStatus === true }));
}

export async function run(deps: Deps, options: StatusOptions): Promise<number> {
  const http = deps.http();
  const { job, raw } = await getJob(http, options.id);
  if (deps.globals.json) writeRaw(deps.io.stdout, raw);
  else await printJob(deps, job, { pagesHint: true });
  if (!options.exitStatus) return ExitCode.ok;
  // Pending, running or a status we do not know: not finished, which is what exit 7 means elsewhere.
  return terminalExitCode(job.status) ?? ExitCode.waitElapsed;
}

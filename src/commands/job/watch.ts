import { Command } from '@commander-js/extra-typings';
import type { Deps } from '../../deps.js';
import { intervalOption, maxWaitOption } from '../shared/flags.js';
import { terminalExitCode } from '../../api/jobs.js';
import { ExitCode } from '../../exit-codes.js';
import { followJob } from './lib/follow.js';
import { printJob } from './lib/view.js';

export interface WatchOptions {
  id: string;
  intervalMs: number;
  maxWaitMs?: number | undefined;
}

/** Polls until the job is terminal; exits with the job's code. Ctrl-C stops watching, never the job. */
export function command(runF: (options: WatchOptions) => Promise<void>) {
  return new Command('watch')
    .description('poll a job until it reaches a terminal status')
    .argument('<id>', 'job id')
    .addOption(intervalOption())
    .addOption(maxWaitOption())
    .action((id, flags) => runF({ id, intervalMs: flags.interval, maxWaitMs: flags.maxWait }));
}

export async function run(deps: Deps, options: WatchOptions): Promise<number> {
  const http = deps.http();
  const { job } = await followJob(deps, http, options.id, {
    intervalMs: options.intervalMs,
    maxWaitMs: options.maxWaitMs,
    ndjson: deps.globals.json,
  });
  if (!deps.globals.json) await printJob(deps, job, { pagesHint: true });
  return terminalExitCode(job.status) ?? ExitCode.failure;
}

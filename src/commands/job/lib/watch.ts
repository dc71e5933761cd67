import type { Deps } from '../../../deps.js';
import { terminalExitCode } from '../../../api/jobs.js';
import { ExitCode } from '../../../exit-codes.js';
import { followJob } from './follow.js';
import { printJob } from './view.js';

export interface WatchOptions {
  id: string;
  intervalMs: number;
  maxWaitMs?: number | undefined;
}

export async function watchJob(deps: Deps, options: WatchOptions): Promise<number> {
  const http = deps.http();
  const { job } = await followJob(deps, http, options.id, {
    intervalMs: options.intervalMs,
    maxWaitMs: options.maxWaitMs,
    ndjson: deps.globals.json,
  });
  if (!deps.globals.json) await printJob(deps, job, { pagesHint: true });
  return terminalExitCode(job.status) ?? ExitCode.failure;
}

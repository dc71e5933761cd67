import { getJob, terminalExitCode } from '../../api/jobs.js';
import type { Context } from '../../app/factory.js';
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
export async function runStatus(ctx: Context, options: StatusOptions): Promise<number> {
  const http = ctx.http();
  const { job, raw } = await getJob(http, options.id);
  if (ctx.globals.json) writeRaw(ctx.io.stdout, raw);
  else await printJob(ctx, job, { pagesHint: true });
  if (!options.exitStatus) return ExitCode.ok;
  // Pending, running or a status we do not know: not finished, which is what exit 7 means elsewhere.
  return terminalExitCode(job.status) ?? ExitCode.waitElapsed;
}

export async function handler(ctx: Context, args: string[], opts: Record<string, unknown>): Promise<number> {
  return runStatus(ctx, { id: args[0] ?? '', exitStatus: opts.exitStatus === true });
}

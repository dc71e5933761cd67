import type { Context } from '../../app/factory.js';
import { parseWaitFlags } from '../shared/flags.js';
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
export async function runWatch(ctx: Context, options: WatchOptions): Promise<number> {
  const http = ctx.http();
  const { job } = await followJob(ctx, http, options.id, {
    intervalMs: options.intervalMs,
    maxWaitMs: options.maxWaitMs,
    ndjson: ctx.globals.json,
  });
  if (!ctx.globals.json) await printJob(ctx, job, { pagesHint: true });
  return terminalExitCode(job.status) ?? ExitCode.failure;
}

export async function handler(ctx: Context, args: string[], opts: Record<string, unknown>): Promise<number> {
  return runWatch(ctx, { id: args[0] ?? '', ...parseWaitFlags(opts, true) });
}

import { Command, Option } from '@commander-js/extra-typings';
import type { Deps } from '../../deps.js';
import type { StatusOptions } from './lib/status.js';

export type { StatusOptions };

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

/** The work is imported when the command runs (see commands/work.ts): help never loads it. */
export async function run(deps: Deps, options: StatusOptions): Promise<number> {
  const { showStatus } = await import('../work.js');
  return showStatus(deps, options);
}

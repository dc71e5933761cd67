import { Command } from '@commander-js/extra-typings';
import type { Deps } from '../../deps.js';
import { intervalOption, maxWaitOption } from '../shared/flags.js';
import type { WatchOptions } from './lib/watch.js';

export type { WatchOptions };

/** Polls until the job is terminal; exits with the job's code. Ctrl-C stops watching, never the job. */
export function command(runF: (options: WatchOptions) => Promise<void>) {
  return new Command('watch')
    .description('poll a job until it reaches a terminal status')
    .argument('<id>', 'job id')
    .addOption(intervalOption())
    .addOption(maxWaitOption())
    .action((id, flags) => runF({ id, intervalMs: flags.interval, maxWaitMs: flags.maxWait }));
}

/** The work is imported when the command runs (see commands/work.ts): help never loads it. */
export async function run(deps: Deps, options: WatchOptions): Promise<number> {
  const { watchJob } = await import('../work.js');
  return watchJob(deps, options);
}

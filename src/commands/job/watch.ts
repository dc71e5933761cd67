import { Command, Option } from '@commander-js/extra-typings';
import { withExamples } from '../shared/examples.js';
import { intervalOption, maxWaitOption } from '../shared/flags.js';
import type { WatchOptions } from './lib/watch.js';

export type { WatchOptions };

/** Polls until the job is terminal; exits with the job's code. Ctrl-C stops watching, never the job. */
export function command(runF: (options: WatchOptions) => Promise<void>) {
  return withExamples(
    new Command('watch')
      .description('poll jobs until they reach a terminal status; exits with the worst of their codes')
      .argument('<id...>', 'job ids')
      .addOption(intervalOption())
      .addOption(maxWaitOption())
      .addOption(new Option('--fail-fast', 'with several ids: stop at the first job that ends other than completed, or cannot be read'))
      .action((ids, flags) => runF({ ids, intervalMs: flags.interval, maxWaitMs: flags.maxWait, failFast: flags.failFast === true })),
    [
      ['watch a job on a terminal: a live line, then the job', 'crawl job watch "$JOB_ID"'],
      ['CI: wait for every crawl a pipeline started; go on only if all completed', 'crawl job watch "$JOB_A" "$JOB_B" "$JOB_C" --max-wait 3600 && ./deploy.sh'],
      ['stop at the first one that fails, with its code', 'crawl job watch "$JOB_A" "$JOB_B" --fail-fast'],
    ],
  );
}

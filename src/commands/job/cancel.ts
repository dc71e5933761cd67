import { Command, Option } from '@commander-js/extra-typings';
import { checkMaxWait, intervalOption, maxWaitOption } from '../shared/flags.js';
import type { CancelOptions } from './lib/cancel.js';
import { withExamples } from '../shared/examples.js';

export type { CancelOptions };

/**
 * DELETE /api/crawl/:id, then the resulting job: from the DELETE's body when it holds one, else
 * from one GET. With --wait, polls until the job is terminal (a service may accept a cancel and
 * keep crawling a while). Exit 0 once the cancellation is accepted; with --wait, 0 when the job
 * ended cancelled_by_user, otherwise the code of the status it ended in.
 */
export function command(runF: (options: CancelOptions) => Promise<void>) {
  return withExamples(
    new Command('cancel')
      .description('cancel a job (DELETE) and show the resulting status')
      .argument('<id>', 'job id')
      .addOption(new Option('--wait', 'poll until the job is terminal'))
      .addOption(intervalOption('seconds between polls with --wait'))
      .addOption(maxWaitOption(true))
      .action((id, flags) => {
        const wait = flags.wait === true;
        return runF({ id, wait, intervalMs: flags.interval, maxWaitMs: checkMaxWait(flags.maxWait, wait) });
      }),
    [
      ['cancel a job and show its status', 'crawl job cancel "$JOB_ID"'],
      ['CI: cancel, and wait until the service says it stopped', 'crawl job cancel "$JOB_ID" --wait --json'],
    ],
  );
}

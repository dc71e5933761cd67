import { Command, Option } from '@commander-js/extra-typings';
import type { StatusOptions } from './lib/status.js';
import { withExamples } from '../shared/examples.js';

export type { StatusOptions };

/**
 * GET /api/crawl/:id and show it. Exit 0 when read; with --exit-status, the job's own code
 * (0 completed, 10-13 failed or cancelled, 7 not finished yet).
 */
export function command(runF: (options: StatusOptions) => Promise<void>) {
  return withExamples(
    new Command('status')
      .description('show a job (also `crawl job <id>`), or several, a row each')
      .argument('<id...>', 'job ids')
      .addOption(new Option('--exit-status', "exit with the job's status code (10 errored, 11-13 cancelled, 7 unfinished); with several, the worst"))
      .action((ids, flags) => runF({ ids, exitStatus: flags.exitStatus === true })),
    [
      ['a job, its fields aligned', 'crawl job "$JOB_ID"'],
      ['several, a row each; with --exit-status the worst of their codes', 'crawl job status "$JOB_A" "$JOB_B" --exit-status'],
      ['CI: the status alone (jq built in, as gh --jq)', "crawl job status \"$JOB_ID\" --jq .job.status"],
    ],
  );
}

import { Command, Option } from '@commander-js/extra-typings';
import { checkMaxWait, intervalOption, maxWaitOption, parseInteger } from '../shared/flags.js';
import { UsageError } from '../../errors.js';
import type { PagesOptions } from './lib/pages.js';
import { withExamples } from '../shared/examples.js';

export type { PagesOptions };

/**
 * Every page of a job as NDJSON, in order, written as it arrives. Pending or running jobs need
 * --wait (which watches first); errored and cancelled jobs export what they have. On a failure
 * midway the records written stay written, and the message says how many.
 */
export function command(runF: (options: PagesOptions) => Promise<void>) {
  return withExamples(
    new Command('pages')
      .description('every crawled page of a job, one JSON record a line')
      .argument('<id>', 'job id')
      .addOption(new Option('--wait', 'watch a pending or running job first, then export'))
      .addOption(new Option('--limit <n>', 'stop after n records').argParser(parseInteger('--limit', 1)))
      .addOption(new Option('--output <file>', 'write the records to a file instead of stdout'))
      .addOption(intervalOption('seconds between polls with --wait'))
      .addOption(maxWaitOption(true))
      .action((id, flags, cmd) => {
        const wait = flags.wait === true;
        if (flags.output === '') throw new UsageError('--output needs a file name ("-" for standard output)');
        // The flags as the user gave them (the default --interval is not), for a hint that
        // suggests this command again with --wait: pasted, it must write where this one would.
        const given: string[] = [];
        if (flags.output !== undefined) given.push('--output', flags.output);
        if (flags.limit !== undefined) given.push('--limit', String(flags.limit));
        if (cmd.getOptionValueSource('interval') === 'cli') given.push('--interval', String(flags.interval / 1000));
        return runF({
          id,
          wait,
          limit: flags.limit,
          // `-` is standard output, as for most tools that take a file.
          output: flags.output === '-' ? undefined : flags.output,
          intervalMs: flags.interval,
          maxWaitMs: checkMaxWait(flags.maxWait, wait),
          given,
        });
      }),
    [
      ['the URL of every page (jq built in: the filter runs on each record)', 'crawl job pages demo-large --jq .url'],
      ['CI: wait for the job, then export it to a file (on a terminal, progress and a last "Wrote" line; off one, a line per change of the job and no summary: the exit code says how it went)', 'crawl job pages "$JOB_ID" --wait --max-wait 3600 --output pages.ndjson'],
      ['the first ten pages', 'crawl job pages demo-large --limit 10'],
    ],
  );
}

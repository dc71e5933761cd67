import { Command } from '@commander-js/extra-typings';
import type { Deps } from '../../deps.js';
import { settingArgument } from './lib/setting.js';
import type { GetOptions } from './lib/get.js';
import { withExamples } from '../shared/examples.js';

export type { GetOptions };

export function command(runF: (options: GetOptions) => Promise<void>) {
  return withExamples(
    new Command('get')
      .description('print a setting of the profile (api-key masked); says when a flag or the environment overrides it')
      .addArgument(settingArgument('the setting'))
      .action((key) => runF({ key })),
    [
      ['one setting of this profile', 'crawl config get base-url'],
      ['of another profile', 'crawl config get base-url --profile ci'],
    ],
  );
}

/** The work is imported when the command runs (see commands/work.ts): help never loads it. */
export async function run(deps: Deps, options: GetOptions): Promise<number> {
  const { getSetting } = await import('../work.js');
  return getSetting(deps, options);
}

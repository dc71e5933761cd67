import { Command } from '@commander-js/extra-typings';
import { settingArgument } from './setting-argument.js';
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

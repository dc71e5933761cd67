import { Command } from '@commander-js/extra-typings';
import { settingArgument } from './setting-argument.js';
import type { UnsetOptions } from './lib/unset.js';
import { withExamples } from '../shared/examples.js';

export type { UnsetOptions };

export function command(runF: (options: UnsetOptions) => Promise<void>) {
  return withExamples(
    new Command('unset')
      .description('remove a setting from the profile')
      .addArgument(settingArgument('the setting'))
      .action((key) => runF({ key })),
    [
      ['remove a setting from this profile', 'crawl config unset base-url'],
      ["forget another profile's stored key (the service still accepts it: revoke it there)", 'crawl config unset api-key --profile staging'],
    ],
  );
}

import { Command } from '@commander-js/extra-typings';
import type { ListOptions } from './lib/list.js';
import { withExamples } from '../shared/examples.js';

export type { ListOptions };

export function command(runF: (options: ListOptions) => Promise<void>) {
  return withExamples(
    new Command('list')
      .description('the settings commands use, and where each comes from: flag, environment, config file or default (api-key masked)')
      .action(() => runF({})),
    [
      ['every setting a command would use, and where each comes from', 'crawl config list'],
      ['as JSON', 'crawl config list --json'],
    ],
  );
}

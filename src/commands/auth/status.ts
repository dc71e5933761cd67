import { Command } from '@commander-js/extra-typings';
import type { StatusOptions } from './lib/status.js';
import { withExamples } from '../shared/examples.js';

export type { StatusOptions };

export function command(runF: (options: StatusOptions) => Promise<void>) {
  return withExamples(
    new Command('status')
      .description('where the key comes from and whether the service accepts it')
      .action(() => runF({})),
    [
      ['where the key comes from, masked, and whether the service takes it', 'crawl auth status'],
      ['CI: the same as JSON', 'crawl auth status --json | jq .accepted'],
    ],
  );
}

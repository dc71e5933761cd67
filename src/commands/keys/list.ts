import { Command } from '@commander-js/extra-typings';
import type { ListOptions } from './lib/list.js';
import { withExamples } from '../shared/examples.js';

export type { ListOptions };

export function command(runF: (options: ListOptions) => Promise<void>) {
  return withExamples(
    new Command('list')
      .description('list active keys; the key in use is marked')
      .action(() => runF({})),
    [
      ['the keys, the one in use marked', 'crawl keys list'],
      ['CI: the ids of keys never used', 'crawl keys list --jq \'.keys[] | select(.lastUsedAt == null) | .id\''],
    ],
  );
}

import { Command } from '@commander-js/extra-typings';
import type { PathOptions } from './lib/path.js';
import { withExamples } from '../shared/examples.js';

export type { PathOptions };

export function command(runF: (options: PathOptions) => Promise<void>) {
  return withExamples(
    new Command('path')
      .description('print the config file path')
      .action(() => runF({})),
    [
      ['where the config file is', 'crawl config path'],
      ['open it in an editor', '"$EDITOR" "$(crawl config path)"'],
    ],
  );
}

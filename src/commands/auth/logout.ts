import { Command } from '@commander-js/extra-typings';
import type { LogoutOptions } from './lib/logout.js';
import { withExamples } from '../shared/examples.js';

export type { LogoutOptions };

export function command(runF: (options: LogoutOptions) => Promise<void>) {
  return withExamples(
    new Command('logout')
      .description("forget this profile's key")
      .action(() => runF({})),
    [
      ['forget this profile\'s key (it stays valid at the service)', 'crawl auth logout'],
      ['another profile\'s', 'crawl auth logout --profile ci'],
    ],
  );
}

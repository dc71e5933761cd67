import { Command } from '@commander-js/extra-typings';
import type { TokenOptions } from './lib/token.js';
import { withExamples } from '../shared/examples.js';

export type { TokenOptions };

export function command(runF: (options: TokenOptions) => Promise<void>) {
  return withExamples(
    new Command('token')
      .description('print the key in use (for scripts)')
      .action(() => runF({})),
    [
      ['the key in use, for another tool that needs it on its stdin', 'crawl auth token | other-tool --key-stdin'],
      ["another profile's key, into a file only you can read", '(umask 077; crawl auth token --profile staging > staging.key)'],
    ],
  );
}

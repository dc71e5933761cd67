import { Command } from '@commander-js/extra-typings';
import type { Deps } from '../../deps.js';
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

/** The work is imported when the command runs (see commands/work.ts): help never loads it. */
export async function run(deps: Deps, options: LogoutOptions): Promise<number> {
  const { logOut } = await import('../work.js');
  return logOut(deps, options);
}

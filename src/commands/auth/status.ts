import { Command } from '@commander-js/extra-typings';
import type { Deps } from '../../deps.js';
import type { StatusOptions } from './lib/status.js';

export type { StatusOptions };

export function command(runF: (options: StatusOptions) => Promise<void>) {
  return new Command('status')
    .description('where the key comes from and whether the service accepts it')
    .action(() => runF({}));
}

/** The work is imported when the command runs (see commands/work.ts): help never loads it. */
export async function run(deps: Deps, options: StatusOptions): Promise<number> {
  const { showAuthStatus } = await import('../work.js');
  return showAuthStatus(deps, options);
}

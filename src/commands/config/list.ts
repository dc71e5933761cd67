import { Command } from '@commander-js/extra-typings';
import type { Deps } from '../../deps.js';
import type { ListOptions } from './lib/list.js';

export type { ListOptions };

export function command(runF: (options: ListOptions) => Promise<void>) {
  return new Command('list')
    .description("the profile's settings (api-key masked)")
    .action(() => runF({}));
}

/** The work is imported when the command runs (see commands/work.ts): help never loads it. */
export async function run(deps: Deps, options: ListOptions): Promise<number> {
  const { listSettings } = await import('../work.js');
  return listSettings(deps, options);
}

import { Command } from '@commander-js/extra-typings';
import type { Deps } from '../../deps.js';
import type { ListOptions } from './lib/list.js';

export type { ListOptions };

export function command(runF: (options: ListOptions) => Promise<void>) {
  return new Command('list')
    .description('list active keys; the key in use is marked')
    .action(() => runF({}));
}

/** The work is imported when the command runs (see commands/work.ts): help never loads it. */
export async function run(deps: Deps, options: ListOptions): Promise<number> {
  const { listKeysOf } = await import('../work.js');
  return listKeysOf(deps, options);
}

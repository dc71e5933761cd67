import { Command } from '@commander-js/extra-typings';
import type { Deps } from '../../deps.js';
import type { TokenOptions } from './lib/token.js';

export type { TokenOptions };

export function command(runF: (options: TokenOptions) => Promise<void>) {
  return new Command('token')
    .description('print the key in use (for scripts)')
    .action(() => runF({}));
}

/** The work is imported when the command runs (see commands/work.ts): help never loads it. */
export async function run(deps: Deps, options: TokenOptions): Promise<number> {
  const { printToken } = await import('../work.js');
  return printToken(deps, options);
}

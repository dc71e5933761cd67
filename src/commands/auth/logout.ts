import { Command } from '@commander-js/extra-typings';
import type { Deps } from '../../deps.js';
import type { LogoutOptions } from './lib/logout.js';

export type { LogoutOptions };

export function command(runF: (options: LogoutOptions) => Promise<void>) {
  return new Command('logout')
    .description("forget this profile's key")
    .action(() => runF({}));
}

/** The work is imported when the command runs (see commands/work.ts): help never loads it. */
export async function run(deps: Deps, options: LogoutOptions): Promise<number> {
  const { logOut } = await import('../work.js');
  return logOut(deps, options);
}

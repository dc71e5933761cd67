import { Command, Option } from '@commander-js/extra-typings';
import type { Deps } from '../../deps.js';
import type { LoginOptions } from './lib/login.js';

export type { LoginOptions };

export function command(runF: (options: LoginOptions) => Promise<void>) {
  return new Command('login')
    .description('store a key after checking it with the service')
    .addOption(new Option('--with-key', 'read the key from standard input'))
    .addOption(new Option('--no-verify', 'save the key without asking the service whether it accepts it'))
    .action((flags) => runF({ withKey: flags.withKey === true, verify: flags.verify }));
}

/** The work is imported when the command runs (see commands/work.ts): help never loads it. */
export async function run(deps: Deps, options: LoginOptions): Promise<number> {
  const { logIn } = await import('../work.js');
  return logIn(deps, options);
}

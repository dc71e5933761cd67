import { Command } from '@commander-js/extra-typings';
import type { Deps } from '../../deps.js';
import { ExitCode } from '../../exit-codes.js';

export type PathOptions = Record<string, never>;

export function command(runF: (options: PathOptions) => Promise<void>) {
  return new Command('path')
    .description('print the config file path')
    .action(() => runF({}));
}

export async function run(deps: Deps, _options: PathOptions): Promise<number> {
  deps.io.stdout.write(deps.settings.store.path + '\n');
  return ExitCode.ok;
}

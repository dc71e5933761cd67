import { Command, Option } from '@commander-js/extra-typings';
import type { Deps } from '../../deps.js';
import { UsageError } from '../../errors.js';
import type { RotateOptions } from './lib/rotate.js';

export type { RotateOptions };

export function command(runF: (options: RotateOptions) => Promise<void>) {
  return new Command('rotate')
    .description('replace the key in use without losing access')
    .addOption(new Option('--name <name>', 'name of the new key (default: old name and the date)'))
    .addOption(new Option('--output-file <path>', 'where to store the new key when it does not come from the config file (- for stdout)'))
    .addOption(new Option('--yes', 'do not ask for confirmation'))
    .action((flags) => {
      const name = flags.name?.trim();
      if (name === '') throw new UsageError('--name needs a name');
      return runF({ name, outputFile: flags.outputFile, yes: flags.yes === true });
    });
}

/** The work is imported when the command runs (see commands/work.ts): help never loads it. */
export async function run(deps: Deps, options: RotateOptions): Promise<number> {
  const { rotateKey } = await import('../work.js');
  return rotateKey(deps, options);
}

import { Argument, Command } from '@commander-js/extra-typings';
import type { Deps } from '../../deps.js';
import { CONFIG_KEYS } from '../../config/setting-names.js';
import { settingArgument } from './lib/setting.js';
import { UsageError } from '../../errors.js';
import type { SetOptions } from './lib/set.js';
import { withExamples } from '../shared/examples.js';

export type { SetOptions };

export function command(runF: (options: SetOptions) => Promise<void>) {
  return withExamples(
    new Command('set')
      .description('set a setting of the profile (keys are stored with `crawl auth login`)')
      .addArgument(settingArgument('the setting', CONFIG_KEYS.filter((key) => key !== 'api-key')))
      .addArgument(new Argument('<value>', 'the value'))
      .action((key, value) => {
        if (key === 'api-key') {
          throw new UsageError('keys are never taken on the command line', 'store one with `crawl auth login`');
        }
        return runF({ key, value });
      }),
    [
      ['the service\'s address for this profile', 'crawl config set base-url https://crawl.example.com'],
      ['for a profile of its own', 'crawl config set base-url http://127.0.0.1:8787 --profile sandbox'],
    ],
  );
}

/** The work is imported when the command runs (see commands/work.ts): help never loads it. */
export async function run(deps: Deps, options: SetOptions): Promise<number> {
  const { setSetting } = await import('../work.js');
  return setSetting(deps, options);
}

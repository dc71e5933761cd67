import { Argument, Command } from '@commander-js/extra-typings';
import { SETTABLE_KEYS } from '../../config/setting-names.js';
import { settingArgument } from './setting-argument.js';
import { UsageError } from '../../errors.js';
import type { SetOptions } from './lib/set.js';
import { withExamples } from '../shared/examples.js';

export type { SetOptions };

export function command(runF: (options: SetOptions) => Promise<void>) {
  return withExamples(
    new Command('set')
      .description('set a setting of the profile (keys are stored with `crawl auth login`)')
      .addArgument(settingArgument('the setting', SETTABLE_KEYS))
      .addArgument(new Argument('<value>', 'the value'))
      .action((key, value) => {
        if (key === 'api-key') {
          throw new UsageError('keys are never taken on the command line', 'store one with `crawl auth login`, or `crawl auth login --with-key` with the key on standard input');
        }
        if (!SETTABLE_KEYS.includes(key)) {
          throw new UsageError(`${key} is recorded by crawl where it stores the key, not set by hand`, 'choose the store with `crawl auth login --store keyring|file`, or `crawl config set key-command <command>`');
        }
        return runF({ key, value });
      }),
    [
      ['the service\'s address for this profile', 'crawl config set base-url https://crawl.example.com'],
      ['for a profile of its own', 'crawl config set base-url http://127.0.0.1:8787 --profile sandbox'],
      ['read the key from a secret manager, at each run', "crawl config set key-command 'vault kv get -field=key secret/crawl'"],
      ['and store a new one there (keys rotate), the key on its stdin', "crawl config set key-store-command 'vault kv put secret/crawl key=-'"],
    ],
  );
}

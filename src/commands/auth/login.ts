import { Command, Option } from '@commander-js/extra-typings';
import type { LoginOptions } from './lib/login.js';
import { withExamples } from '../shared/examples.js';
import { UsageError } from '../../errors.js';

export type { LoginOptions };

export function command(runF: (options: LoginOptions) => Promise<void>) {
  return withExamples(
    new Command('login')
      .description('store a key after checking it with the service')
      .addOption(new Option('--with-key', 'read the key from standard input'))
      // gh's spelling, for the hands that type it.
      .addOption(new Option('--with-token', 'the same as --with-key').hideHelp())
      .addOption(new Option('--no-verify', 'save the key without asking the service whether it accepts it'))
      .addOption(new Option('--store <store>', 'where the key goes: the system keyring (the default), or the config file in plaintext').choices(['keyring', 'file'] as const))
      .addOption(new Option('--insecure-storage', 'keep the key in plaintext in the config file (same as --store file)'))
      .action((flags) => {
        if (flags.insecureStorage === true && flags.store === 'keyring') {
          throw new UsageError('--insecure-storage and --store keyring ask for two different stores: give one');
        }
        const store = flags.insecureStorage === true ? 'file' : flags.store;
        return runF({ withKey: flags.withKey === true || flags.withToken === true, verify: flags.verify, ...(store === undefined ? {} : { store }) });
      }),
    [
      ['paste the key at a hidden prompt; it is checked, then stored', 'crawl auth login'],
      ['CI: the key from a secret, on stdin', 'printf \'%s\' "$CRAWL_KEY" | crawl auth login --with-key --profile ci'],
      ['keep the key in the config file, not the keyring (a machine without one)', 'crawl auth login --insecure-storage'],
    ],
  );
}

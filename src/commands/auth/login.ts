import { Command, Option } from '@commander-js/extra-typings';
import type { LoginOptions } from './lib/login.js';
import { withExamples } from '../shared/examples.js';

export type { LoginOptions };

export function command(runF: (options: LoginOptions) => Promise<void>) {
  return withExamples(
    new Command('login')
      .description('store a key after checking it with the service')
      .addOption(new Option('--with-key', 'read the key from standard input'))
      .addOption(new Option('--no-verify', 'save the key without asking the service whether it accepts it'))
      .action((flags) => runF({ withKey: flags.withKey === true, verify: flags.verify })),
    [
      ['paste the key at a hidden prompt; it is checked, then stored', 'crawl auth login'],
      ['CI: the key from a secret, on stdin', 'printf \'%s\' "$CRAWL_KEY" | crawl auth login --with-key --profile ci'],
    ],
  );
}

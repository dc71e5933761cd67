import { Command, Option } from '@commander-js/extra-typings';
import type { RevokeOptions } from './lib/revoke.js';
import { withExamples } from '../shared/examples.js';

export type { RevokeOptions };

export function command(runF: (options: RevokeOptions) => Promise<void>) {
  return withExamples(
    new Command('revoke')
      .description('revoke keys by id, unique key prefix or unique name (cannot be undone)')
      .argument('<key...>', 'key ids, unique prefixes of keyPrefix, or unique names')
      .addOption(new Option('--yes', 'do not ask for confirmation'))
      .addOption(new Option('--force', 'allow revoking the key in use (or a key that may be)'))
      .action((ids, flags) => runF({ ids, yes: flags.yes === true, force: flags.force === true })),
    [
      ['revoke by id, a unique prefix or a unique name', 'crawl keys revoke key_0123456789ab crk_AbCd old-laptop'],
      ['CI: no prompt', 'crawl keys revoke "$OLD_KEY_ID" --yes'],
    ],
  );
}

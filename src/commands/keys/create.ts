import { Command, Option } from '@commander-js/extra-typings';
import { UsageError } from '../../errors.js';
import type { CreateOptions } from './lib/create.js';
import { withExamples } from '../shared/examples.js';

export type { CreateOptions };

export function command(runF: (options: CreateOptions) => Promise<void>) {
  return withExamples(
    new Command('create')
      .description('create a key; the full key is printed once, on stdout, unless --save or --output-file keeps it')
      .argument('<name>', 'a label for the key')
      .addOption(new Option('--save', "store the new key as this profile's key, instead of printing it"))
      .addOption(new Option('--output-file <path>', 'write the key to a new file (mode 0600), instead of printing it; - prints it'))
      .action((name, flags) => {
        if (name.trim() === '') throw new UsageError('the key needs a name', 'crawl keys create <name>');
        return runF({ name: name.trim(), save: flags.save === true, outputFile: flags.outputFile });
      }),
    [
      ['CI: a key for a job, kept in a variable (only the key is on stdout)', 'KEY=$(crawl keys create "ci-$(date +%F)")'],
      ['a key stored as this profile\'s key', 'crawl keys create laptop --save'],
      ['a key written to a new 0600 file', 'crawl keys create backup --output-file ~/backup.key'],
    ],
  );
}

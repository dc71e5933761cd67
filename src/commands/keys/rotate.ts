import { Command, Option } from '@commander-js/extra-typings';
import { UsageError } from '../../errors.js';
import type { RotateOptions } from './lib/rotate.js';
import { withExamples } from '../shared/examples.js';
import { parseDuration } from '../shared/flags.js';
import type { IfOlderThan } from './lib/rotate-due.js';

export type { RotateOptions };

export function command(runF: (options: RotateOptions) => Promise<void>) {
  const command = new Command('rotate')
    .description('replace the key in use without losing access')
    .addOption(new Option('--to-command <command>', 'store the new key by running <command> (through /bin/sh; cmd.exe on Windows, even from PowerShell) with the key on its stdin; the old key is revoked only if it exits 0, else the new key is revoked'))
    .addOption(new Option('--output-file <path>', 'where to store the new key when it does not come from the config file (- for stdout)'))
    .addOption(new Option('--keep-old', 'leave the old key active (for keys rolled over a window); retire it later with keys revoke'))
    .addOption(new Option('--name <name>', 'name of the new key (default: old name and the date)'))
    .addOption(new Option('--if-older-than <duration>', 'rotate only a key in use created longer ago than this (30d, 6mo, 1y; the units of keys prune); otherwise say it is not due, and exit 0').argParser(ifOlderThan))
    .addOption(new Option('--yes', 'do not ask for confirmation'))
    .action((flags) => {
      const name = flags.name?.trim();
      if (name === '') throw new UsageError('--name needs a name');
      return runF({ name, outputFile: flags.outputFile, toCommand: flags.toCommand, keepOld: flags.keepOld === true, ifOlderThan: flags.ifOlderThan, yes: flags.yes === true });
    });
  return withExamples(command, [
    ['CI: the key in CRAWL_API_KEY, rotated back into the secret store it came from', "crawl keys rotate --yes --to-command 'gh secret set CRAWL_API_KEY'"],
    ['CI, every night: rotate the key once it is 30 days old; until then say it is not due, and exit 0', "crawl keys rotate --yes --if-older-than 30d --to-command 'gh secret set CRAWL_API_KEY'"],
    ['keys rolled over a window: the old one stays active until keys revoke or keys prune retires it', "crawl keys rotate --yes --keep-old --to-command 'vault kv put secret/crawl api-key=-'"],
    ['a key kept in the config file (by auth login), on a terminal', 'crawl keys rotate --profile ci'],
  ]);
}

function ifOlderThan(value: string): IfOlderThan {
  const span = parseDuration('--if-older-than', 'would rotate the key whatever its age: to do that, leave --if-older-than out')(value);
  return { span, text: value.trim() };
}

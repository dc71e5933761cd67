import { Command, Option } from '@commander-js/extra-typings';
import { UsageError } from '../../errors.js';
import { DURATION_UNITS } from '../../text/duration.js';
import { globMatcher } from '../../text/glob.js';
import type { PruneOptions } from './lib/prune.js';
import { withExamples } from '../shared/examples.js';
import { parseDuration } from '../shared/flags.js';

export type { PruneOptions };

export function command(runF: (options: PruneOptions) => Promise<void>) {
  const command = new Command('prune')
    .description('revoke keys not used for a while; never the key in use')
    .addOption(new Option('--unused-for <duration>', `keys not used for this long (never used: since created), e.g. 30d, 6mo, 1y, 12h, 1d12h; units: ${DURATION_UNITS}`).argParser(parseDuration('--unused-for', 'would count every key as unused, even one used a moment ago')))
    .addOption(new Option('--never-used', 'keys never used (with --unused-for: and created longer ago than that)'))
    .addOption(new Option('--name-glob <pattern>', 'only keys whose whole name matches, e.g. "ci-*" (* ? [abc])'))
    .addOption(new Option('--dry-run', 'list the keys that would be revoked, and revoke none'))
    .addOption(new Option('--yes', 'do not ask for confirmation'))
    .action((flags) => {
      if (flags.unusedFor === undefined && flags.neverUsed !== true) {
        throw new UsageError('say which keys to prune: --unused-for <duration>, --never-used, or both');
      }
      let nameMatches: ((name: string) => boolean) | undefined;
      if (flags.nameGlob !== undefined) {
        try {
          nameMatches = globMatcher(flags.nameGlob);
        } catch {
          throw new UsageError(`invalid --name-glob "${flags.nameGlob}": a [set] in it is not valid`);
        }
      }
      return runF({ unusedFor: flags.unusedFor, neverUsed: flags.neverUsed === true, nameMatches, dryRun: flags.dryRun === true, yes: flags.yes === true });
    });
  return withExamples(command, [
    ['CI: retire the keys CI jobs made that nobody used for 30 days', "crawl keys prune --unused-for 30d --name-glob 'ci-*' --yes"],
    ['see first what would go', 'crawl keys prune --never-used --unused-for 7d --dry-run'],
    ['keys idle for six months (mo: months; min: minutes)', 'crawl keys prune --unused-for 6mo --dry-run'],
  ]);
}

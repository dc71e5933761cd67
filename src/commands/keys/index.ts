// The `keys` group: its commands, each with its typed flags, and the work each runs (commands/work.ts).
import type { Command } from '@commander-js/extra-typings';
import { withExamples } from '../shared/examples.js';
import type { Exec } from '../shared/exec.js';
import * as create from './create.js';
import * as list from './list.js';
import * as prune from './prune.js';
import * as revoke from './revoke.js';
import * as rotate from './rotate.js';

export function register(group: Command, exec: Exec): void {
  withExamples(group, [
    ['the keys of the account, the one in use marked', 'crawl keys list'],
    ['CI, every night: rotate the key in use once it is 30 days old, back into its secret store', "crawl keys rotate --yes --if-older-than 30d --to-command 'gh secret set CRAWL_API_KEY'"],
    ['see which keys nobody used for 90 days, revoking none', 'crawl keys prune --unused-for 90d --dry-run'],
  ]);
  group.addCommand(create.command(exec('keysCreateRun')));
  group.addCommand(list.command(exec('keysListRun')));
  group.addCommand(revoke.command(exec('keysRevokeRun')));
  group.addCommand(prune.command(exec('keysPruneRun')));
  group.addCommand(rotate.command(exec('keysRotateRun')));
}

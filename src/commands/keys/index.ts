// The `keys` group: its commands, each with its typed flags, and the work each runs (commands/work.ts).
import type { Command } from '@commander-js/extra-typings';
import { withExamples } from '../shared/examples.js';
import type { Registration } from '../shared/exec.js';

export const commands: readonly Registration[] = [
  { name: 'create', build: async (exec) => (await import('./create.js')).command(exec('keysCreateRun')) },
  { name: 'list', build: async (exec) => (await import('./list.js')).command(exec('keysListRun')) },
  { name: 'revoke', build: async (exec) => (await import('./revoke.js')).command(exec('keysRevokeRun')) },
  { name: 'prune', build: async (exec) => (await import('./prune.js')).command(exec('keysPruneRun')) },
  { name: 'rotate', build: async (exec) => (await import('./rotate.js')).command(exec('keysRotateRun')) },
];

/** What the group's own help shows besides its commands. */
export function configure(group: Command): void {
  withExamples(group, [
    ['the keys of the account, the one in use marked', 'crawl keys list'],
    ['CI, every night: rotate the key in use once it is 30 days old, back into its secret store', "crawl keys rotate --yes --if-older-than 30d --to-command 'gh secret set CRAWL_API_KEY'"],
    ['see which keys nobody used for 90 days, revoking none', 'crawl keys prune --unused-for 90d --dry-run'],
  ]);
}

// The `config` group: its commands, each with its typed flags, and the work each runs (commands/work.ts).
import type { Command } from '@commander-js/extra-typings';
import { withExamples } from '../shared/examples.js';
import type { Registration } from '../shared/exec.js';

export const commands: readonly Registration[] = [
  { name: 'get', build: async (exec) => (await import('./get.js')).command(exec('configGetRun')) },
  { name: 'set', build: async (exec) => (await import('./set.js')).command(exec('configSetRun')) },
  { name: 'unset', build: async (exec) => (await import('./unset.js')).command(exec('configUnsetRun')) },
  { name: 'list', build: async (exec) => (await import('./list.js')).command(exec('configListRun')) },
  { name: 'path', build: async (exec) => (await import('./path.js')).command(exec('configPathRun')) },
];

/** What the group's own help shows besides its commands. */
export function configure(group: Command): void {
  withExamples(group, [
    ['point this profile at the service', 'crawl config set base-url https://crawl.example.com'],
    ['every setting a command would use, and where each comes from', 'crawl config list'],
    ['where the config file is', 'crawl config path'],
  ]);
}

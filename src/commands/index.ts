// Every command of the CLI, by group, then the root's own: each registration names its module,
// loaded only when a run builds that command, and its work (commands/work.ts), loaded only when it
// runs. What help and completion show of the others is in the command table, made from these
// modules by the build (src/build/command-table.ts).
import type { Command } from '@commander-js/extra-typings';
import * as auth from './auth/index.js';
import * as config from './config/index.js';
import * as job from './job/index.js';
import * as keys from './keys/index.js';
import type { Registration } from './shared/exec.js';

export type { CommandFacts, Exec, Registration } from './shared/exec.js';

export interface Group {
  name: string;
  description: string;
  commands: readonly Registration[];
  /** What the group adds to its Command besides its commands (its help's examples, hooks). */
  configure?(group: Command): void;
}

export const groups: readonly Group[] = [
  { name: 'job', description: 'inspect, watch, export and cancel crawl jobs', commands: job.commands, configure: job.configure },
  { name: 'keys', description: 'create, list, revoke, prune and rotate API keys', commands: keys.commands, configure: keys.configure },
  { name: 'auth', description: 'store, check, print and forget the API key of a profile', commands: auth.commands, configure: auth.configure },
  { name: 'config', description: 'read and write the config file', commands: config.commands, configure: config.configure },
];

/** The commands of the root (`crawl help`, which runs without Deps, is the program's own). */
export const rootCommands: readonly Registration[] = [
  { name: 'api', build: async (exec) => (await import('./api/api.js')).command(exec('apiRun')) },
  { name: 'sandbox', build: async (exec) => (await import('./sandbox/sandbox.js')).command(exec('sandboxRun')) },
  { name: 'completion', build: async (exec) => (await import('./completion/completion.js')).command(exec('completionRun')) },
  { name: '__complete', hidden: true, build: async (exec) => (await import('./completion/completion.js')).completeCommand(exec('completeRun')) },
];

export { COMMAND_TABLE } from './command-table.js';
export { helpTopic } from './help/help.js';

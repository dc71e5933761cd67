// Every command of the CLI, by group, then the root's own: each module declares its typed flags, and
// its registration names its work (commands/work.ts), loaded only when a command runs, so declaring
// them all costs help little.
import type { Command } from '@commander-js/extra-typings';
import * as api from './api/api.js';
import * as auth from './auth/index.js';
import * as completion from './completion/completion.js';
import * as config from './config/index.js';
import * as job from './job/index.js';
import * as keys from './keys/index.js';
import * as sandbox from './sandbox/sandbox.js';
import type { Exec } from './shared/exec.js';

export type { Exec };

export interface Group {
  name: string;
  description: string;
  /** Adds the group's commands to its Command. */
  register(group: Command, exec: Exec): void;
}

export const groups: readonly Group[] = [
  { name: 'job', description: 'inspect, watch, export and cancel crawl jobs', register: job.register },
  { name: 'keys', description: 'create, list, revoke, prune and rotate API keys', register: keys.register },
  { name: 'auth', description: 'store, check, print and forget the API key of a profile', register: auth.register },
  { name: 'config', description: 'read and write the config file', register: config.register },
];

/** The commands of the root (`crawl help`, which runs without Deps, is the program's own). */
export function registerRoot(program: Command, exec: Exec): void {
  program.addCommand(api.command(exec('apiRun')));
  program.addCommand(sandbox.command(exec('sandboxRun')));
  program.addCommand(completion.command(exec('completionRun')));
  program.addCommand(completion.completeCommand(exec('completeRun')), { hidden: true });
}

export { helpTopic } from './help/help.js';

// Every command of the CLI, by group: each module declares its own typed flags, and its run(deps,
// options) imports the work only when the command runs, so declaring them all costs help little.
import type { Command } from '@commander-js/extra-typings';
import * as auth from './auth/index.js';
import * as config from './config/index.js';
import * as job from './job/index.js';
import * as keys from './keys/index.js';
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

export * as sandbox from './sandbox.js';
export * as api from './api/api.js';
export * as completion from './completion/completion.js';
export { helpTopic } from './help.js';

// Every command of the CLI, by group. A group's modules are imported only when the command line
// names it (or help needs them all): each declares its own typed flags and its run(deps, options).
import type { Command } from '@commander-js/extra-typings';
import type { Exec } from './shared/exec.js';

export type { Exec };

export interface Group {
  name: string;
  description: string;
  /** The group's module, whose `register` adds its commands to the group's Command. */
  load(): Promise<{ register(group: Command, exec: Exec): void }>;
}

export const groups: readonly Group[] = [
  { name: 'job', description: 'inspect, watch, export and cancel crawl jobs', load: () => import('./job/index.js') },
  { name: 'keys', description: 'create, list, revoke and rotate API keys', load: () => import('./keys/index.js') },
  { name: 'auth', description: 'store, check, print and forget the API key of a profile', load: () => import('./auth/index.js') },
  { name: 'config', description: 'read and write the config file', load: () => import('./config/index.js') },
];

export * as sandbox from './sandbox.js';
export { helpTopic } from './help.js';

// The `config` group: its commands, each with its typed flags, and the work each runs (commands/work.ts).
import type { Command } from '@commander-js/extra-typings';
import { withExamples } from '../shared/examples.js';
import type { Exec } from '../shared/exec.js';
import * as get from './get.js';
import * as list from './list.js';
import * as path from './path.js';
import * as set from './set.js';
import * as unset from './unset.js';

export function register(group: Command, exec: Exec): void {
  withExamples(group, [
    ['point this profile at the service', 'crawl config set base-url https://crawl.example.com'],
    ['every setting a command would use, and where each comes from', 'crawl config list'],
    ['where the config file is', 'crawl config path'],
  ]);
  group.addCommand(get.command(exec('configGetRun')));
  group.addCommand(set.command(exec('configSetRun')));
  group.addCommand(unset.command(exec('configUnsetRun')));
  group.addCommand(list.command(exec('configListRun')));
  group.addCommand(path.command(exec('configPathRun')));
}

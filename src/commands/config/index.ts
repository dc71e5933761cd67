// The `config` group: its commands, each with its typed flags, and the work each runs (commands/work.ts).
import type { Command } from '@commander-js/extra-typings';
import type { Exec } from '../shared/exec.js';
import * as get from './get.js';
import * as list from './list.js';
import * as path from './path.js';
import * as set from './set.js';
import * as unset from './unset.js';

export function register(group: Command, exec: Exec): void {
  group.addCommand(get.command(exec('configGetRun')));
  group.addCommand(set.command(exec('configSetRun')));
  group.addCommand(unset.command(exec('configUnsetRun')));
  group.addCommand(list.command(exec('configListRun')));
  group.addCommand(path.command(exec('configPathRun')));
}

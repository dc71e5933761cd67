// The `config` group: its commands, each with its typed flags and its run(deps, options).
import type { Command } from '@commander-js/extra-typings';
import type { Exec } from '../shared/exec.js';
import * as get from './get.js';
import * as list from './list.js';
import * as path from './path.js';
import * as set from './set.js';
import * as unset from './unset.js';

export function register(group: Command, exec: Exec): void {
  group.addCommand(get.command((o) => exec(get.run, o)));
  group.addCommand(set.command((o) => exec(set.run, o)));
  group.addCommand(unset.command((o) => exec(unset.run, o)));
  group.addCommand(list.command((o) => exec(list.run, o)));
  group.addCommand(path.command((o) => exec(path.run, o)));
}

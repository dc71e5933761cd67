// The `keys` group: its commands, each with its typed flags and its run(deps, options).
import type { Command } from '@commander-js/extra-typings';
import type { Exec } from '../shared/exec.js';
import * as create from './create.js';
import * as list from './list.js';
import * as prune from './prune.js';
import * as revoke from './revoke.js';
import * as rotate from './rotate.js';

export function register(group: Command, exec: Exec): void {
  group.addCommand(create.command((o) => exec(create.run, o)));
  group.addCommand(list.command((o) => exec(list.run, o)));
  group.addCommand(revoke.command((o) => exec(revoke.run, o)));
  group.addCommand(prune.command((o) => exec(prune.run, o)));
  group.addCommand(rotate.command((o) => exec(rotate.run, o)));
}

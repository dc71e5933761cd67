// The `keys` group: its commands, each with its typed flags, and the work each runs (commands/work.ts).
import type { Command } from '@commander-js/extra-typings';
import type { Exec } from '../shared/exec.js';
import * as create from './create.js';
import * as list from './list.js';
import * as prune from './prune.js';
import * as revoke from './revoke.js';
import * as rotate from './rotate.js';

export function register(group: Command, exec: Exec): void {
  group.addCommand(create.command(exec('keysCreateRun')));
  group.addCommand(list.command(exec('keysListRun')));
  group.addCommand(revoke.command(exec('keysRevokeRun')));
  group.addCommand(prune.command(exec('keysPruneRun')));
  group.addCommand(rotate.command(exec('keysRotateRun')));
}

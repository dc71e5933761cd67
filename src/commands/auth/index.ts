// The `auth` group: its commands, each with its typed flags and its run(deps, options).
import type { Command } from '@commander-js/extra-typings';
import type { Exec } from '../shared/exec.js';
import * as login from './login.js';
import * as logout from './logout.js';
import * as status from './status.js';
import * as token from './token.js';

export function register(group: Command, exec: Exec): void {
  group.addCommand(login.command((o) => exec(login.run, o)));
  group.addCommand(status.command((o) => exec(status.run, o)));
  group.addCommand(token.command((o) => exec(token.run, o)));
  group.addCommand(logout.command((o) => exec(logout.run, o)));
}

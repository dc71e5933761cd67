// The `auth` group: its commands, each with its typed flags, and the work each runs (commands/work.ts).
import type { Command } from '@commander-js/extra-typings';
import type { Exec } from '../shared/exec.js';
import * as login from './login.js';
import * as logout from './logout.js';
import * as status from './status.js';
import * as token from './token.js';

export function register(group: Command, exec: Exec): void {
  group.addCommand(login.command(exec('authLoginRun')));
  group.addCommand(status.command(exec('authStatusRun')));
  group.addCommand(token.command(exec('authTokenRun')));
  group.addCommand(logout.command(exec('authLogoutRun')));
}

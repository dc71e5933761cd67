// The `auth` group: its commands, each with its typed flags, and the work each runs (commands/work.ts).
import type { Command } from '@commander-js/extra-typings';
import { withExamples } from '../shared/examples.js';
import type { Exec } from '../shared/exec.js';
import * as login from './login.js';
import * as logout from './logout.js';
import * as status from './status.js';
import * as token from './token.js';

export function register(group: Command, exec: Exec): void {
  withExamples(group, [
    ['paste the key at a hidden prompt: checked with the service, then stored in the keyring', 'crawl auth login'],
    ['where the key comes from, masked, and whether the service accepts it', 'crawl auth status'],
    ['CI: another profile\'s key, from a secret on stdin', 'printf \'%s\' "$CRAWL_KEY" | crawl auth login --with-key --profile ci'],
  ]);
  group.addCommand(login.command(exec('authLoginRun')));
  group.addCommand(status.command(exec('authStatusRun')));
  group.addCommand(token.command(exec('authTokenRun')));
  group.addCommand(logout.command(exec('authLogoutRun')));
}

// The `auth` group: its commands, each with its typed flags, and the work each runs (commands/work.ts).
import type { Command } from '@commander-js/extra-typings';
import { withExamples } from '../shared/examples.js';
import type { Registration } from '../shared/exec.js';

export const commands: readonly Registration[] = [
  { name: 'login', build: async (exec) => (await import('./login.js')).command(exec('authLoginRun')) },
  { name: 'status', build: async (exec) => (await import('./status.js')).command(exec('authStatusRun')) },
  { name: 'token', build: async (exec) => (await import('./token.js')).command(exec('authTokenRun')) },
  { name: 'logout', build: async (exec) => (await import('./logout.js')).command(exec('authLogoutRun')) },
];

/** What the group's own help shows besides its commands. */
export function configure(group: Command): void {
  withExamples(group, [
    ['paste the key at a hidden prompt: checked with the service, then stored in the keyring', 'crawl auth login'],
    ['where the key comes from, masked, and whether the service accepts it', 'crawl auth status'],
    ['CI: another profile\'s key, from a secret on stdin', 'printf \'%s\' "$CRAWL_KEY" | crawl auth login --with-key --profile ci'],
  ]);
}

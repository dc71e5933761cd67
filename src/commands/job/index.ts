// The `job` group: its commands, each with its typed flags, and the work each runs (commands/work.ts).
import type { Command } from '@commander-js/extra-typings';
import type { Exec } from '../shared/exec.js';
import * as cancel from './cancel.js';
import * as pages from './pages.js';
import * as status from './status.js';
import { refuseMistypedCommand } from './subcommand-typo.js';
import * as watch from './watch.js';

export function register(group: Command, exec: Exec): void {
  group.hook('preSubcommand', (self, sub) => {
    // `crawl job <id>` (the default command), not `crawl job status <id>`: its first word may be a
    // mistyped command, refused before its flags are checked or anything is sent.
    if (self.args[0] !== sub.name()) refuseMistypedCommand(self.args);
  });
  // `crawl job <id>` runs status.
  group.addCommand(status.command(exec('jobStatusRun')), { isDefault: true });
  group.addCommand(watch.command(exec('jobWatchRun')));
  group.addCommand(pages.command(exec('jobPagesRun')));
  group.addCommand(cancel.command(exec('jobCancelRun')));
}

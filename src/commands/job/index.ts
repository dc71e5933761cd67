// The `job` group: its commands, each with its typed flags, and the work each runs (commands/work.ts).
import type { Command } from '@commander-js/extra-typings';
import type { Exec } from '../shared/exec.js';
import * as cancel from './cancel.js';
import * as pages from './pages.js';
import * as status from './status.js';
import * as watch from './watch.js';

export function register(group: Command, exec: Exec): void {
  // `crawl job <id>` runs status.
  group.addCommand(status.command(exec('jobStatusRun')), { isDefault: true });
  group.addCommand(watch.command(exec('jobWatchRun')));
  group.addCommand(pages.command(exec('jobPagesRun')));
  group.addCommand(cancel.command(exec('jobCancelRun')));
}

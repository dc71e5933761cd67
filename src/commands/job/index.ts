// The `job` group: its commands, each with its typed flags, and the work each runs (commands/work.ts).
import type { Command } from '@commander-js/extra-typings';
import { withExamples } from '../shared/examples.js';
import type { Exec } from '../shared/exec.js';
import * as cancel from './cancel.js';
import * as pages from './pages.js';
import * as status from './status.js';
import { refuseMistypedCommand } from './subcommand-typo.js';
import * as watch from './watch.js';

export function register(group: Command, exec: Exec): void {
  withExamples(group, [
    ['a job, its fields aligned (`crawl job <id>` is `crawl job status <id>`)', 'crawl job "$JOB_ID"'],
    ['CI: wait for a crawl to finish (exit 0 only if it completed), then export its pages', 'crawl job watch "$JOB_ID" && crawl job pages "$JOB_ID" --output pages.ndjson'],
    ['cancel a crawl, and wait until the service says it stopped', 'crawl job cancel "$JOB_ID" --wait'],
  ]);
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

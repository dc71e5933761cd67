// The `job` group: its commands, each with its typed flags, and the work each runs (commands/work.ts).
import type { Command } from '@commander-js/extra-typings';
import { withExamples } from '../shared/examples.js';
import type { Registration } from '../shared/exec.js';
import { refuseMistypedCommand } from './subcommand-typo.js';

export const commands: readonly Registration[] = [
  // `crawl job <id>` runs status.
  { name: 'status', isDefault: true, build: async (exec) => (await import('./status.js')).command(exec('jobStatusRun')) },
  { name: 'watch', build: async (exec) => (await import('./watch.js')).command(exec('jobWatchRun')) },
  { name: 'pages', build: async (exec) => (await import('./pages.js')).command(exec('jobPagesRun')) },
  { name: 'cancel', build: async (exec) => (await import('./cancel.js')).command(exec('jobCancelRun')) },
];

export function configure(group: Command): void {
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
}

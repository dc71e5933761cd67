// The `job` group: its commands, each with its typed flags and its run(deps, options).
import type { Command } from '@commander-js/extra-typings';
import type { Exec } from '../shared/exec.js';
import * as cancel from './cancel.js';
import * as pages from './pages.js';
import * as status from './status.js';
import { withTypoHint } from './subcommand-typo.js';
import * as watch from './watch.js';

export function register(group: Command, exec: Exec): void {
  // Whether `status` runs as `crawl job <id>` (the default command) rather than by its name.
  let viaDefault = false;
  group.hook('preSubcommand', (self, sub) => {
    viaDefault = self.args[0] !== sub.name();
  });
  const statusRun = withTypoHint(status.run, (o) => o.ids, () => viaDefault);
  group.addCommand(status.command((o) => exec(statusRun, o)), { isDefault: true });
  group.addCommand(watch.command((o) => exec(watch.run, o)));
  group.addCommand(pages.command((o) => exec(pages.run, o)));
  group.addCommand(cancel.command((o) => exec(cancel.run, o)));
}

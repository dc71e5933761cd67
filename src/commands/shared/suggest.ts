import type { Deps } from '../../deps.js';
import { sanitize } from '../../text/sanitize.js';
import { commandLine } from '../../text/shell.js';

/**
 * A `crawl` command to suggest in a hint or message, as the user would type it to act on the same
 * service and profile as this run: a --profile or --base-url given on this command line is
 * repeated (the environment carries itself). Every value is cleaned of control characters and
 * quoted for the shell: ids and names may come from a server and must not run as code when pasted.
 */
export function crawlCommand(deps: Deps, subcommand: readonly string[], operands: readonly unknown[] = [], flags: readonly string[] = []): string {
  return commandLine({
    command: ['crawl', ...globalFlags(deps), ...subcommand],
    operands: operands.map((o) => sanitize(o)),
    flags,
  });
}

function globalFlags(deps: Deps): string[] {
  const flags: string[] = [];
  try {
    const profile = deps.settings.profile();
    if (profile.source === 'flag') flags.push('--profile', profile.value);
    const base = deps.settings.baseUrl();
    if (base?.source === 'flag') flags.push('--base-url', sanitize(base.value));
  } catch {
    // A hint never fails the command: without the flags it still names the right subcommand.
  }
  if (deps.globals.allowHttp) flags.push('--allow-http');
  return flags;
}

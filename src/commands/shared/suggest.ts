import type { Deps } from '../../deps.js';
import { sanitize } from '../../text/sanitize.js';
import { commandLine, quotingFor } from '../../text/shell.js';

/**
 * A `crawl` command to suggest in a hint or message, as the user would type it to act on the same
 * service and profile as this run: the profile (unless the default, from --profile or
 * CRAWL_PROFILE), a --base-url given on this command line and --allow-http are repeated. Every
 * value is cleaned of control characters and quoted for the shell: ids and names may come from a
 * server and must not run as code when pasted.
 */
export function crawlCommand(deps: Deps, subcommand: readonly string[], operands: readonly unknown[] = [], flags: readonly string[] = []): string {
  const globals = deps.settings.suggestionFlags().map((word) => sanitize(word));
  if (deps.globals.allowHttp) globals.push('--allow-http');
  return commandLine({
    command: ['crawl', ...globals, ...subcommand],
    operands: operands.map((o) => sanitize(o)),
    flags,
  }, quotingFor(deps.platform, deps.env));
}

import { SETTABLE_KEYS } from '../../../config/setting-names.js';
import type { ConfigKey } from '../../../config/store.js';
import type { Deps } from '../../../deps.js';
import { CrawlError } from '../../../errors.js';
import { ExitCode } from '../../../exit-codes.js';
import { writeJson } from '../../../io/json.js';
import { sanitize } from '../../../text/sanitize.js';
import { crawlCommand } from '../../shared/suggest.js';
import { shown } from './setting.js';

export interface GetOptions {
  key: ConfigKey;
}

/**
 * The profile's own value of a setting. When a flag or a variable wins over it in this run, that
 * is said (a note on stderr; `overriddenBy` with --json), with the value commands use instead:
 * what `get` prints is then not what they send.
 */
export async function configGetRun(deps: Deps, { key }: GetOptions): Promise<number> {
  const profile = deps.settings.profile().value;
  const value = deps.settings.stored()[key];
  const overriddenBy = deps.settings.overriddenBy(key);
  const used = overriddenBy === undefined ? undefined : deps.settings.resolve(key)?.value;
  if (overriddenBy !== undefined && used !== undefined && !deps.globals.json) {
    const what = used === value ? ', to this same value' : `: commands use ${sanitize(shown(key, used))}${value === undefined ? '' : ', not this value'}`;
    deps.io.stderr.write(`note: ${overriddenBy} is set in this run${what}\n`);
  }
  if (value === undefined) {
    throw new CrawlError(`${key} is not set in profile "${profile}"`, ExitCode.failure, { hint: unsetHint(deps, key) });
  }
  if (deps.globals.json) writeJson(deps.io, JSON.stringify({ profile, key, value: shown(key, value), overriddenBy: overriddenBy ?? null }));
  else deps.io.stdout.write(shown(key, value) + '\n');
  return ExitCode.ok;
}

/**
 * What sets it: `auth login` the key, `config set` a setting one sets by hand; where crawl keeps
 * the key it records itself (`config set` refuses those), and `auth status` says where it is.
 */
function unsetHint(deps: Deps, key: ConfigKey): string {
  if (key === 'api-key') return `run \`${crawlCommand(deps, ['auth', 'login'])}\``;
  if (SETTABLE_KEYS.includes(key)) return `run \`${crawlCommand(deps, ['config', 'set', key])} <value>\``;
  return `crawl records it when \`${crawlCommand(deps, ['auth', 'login'])}\` stores the key in a system keyring; \`${crawlCommand(deps, ['auth', 'status'])}\` says where the key is`;
}

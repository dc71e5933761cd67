import type { ConfigKey } from '../../../config/store.js';
import type { Deps } from '../../../deps.js';
import { CrawlError } from '../../../errors.js';
import { ExitCode } from '../../../exit-codes.js';
import { crawlCommand } from '../../shared/suggest.js';
import { shown } from './setting.js';
import { writeJson } from '../../../io/json.js';

export interface GetOptions {
  key: ConfigKey;
}

export async function getSetting(deps: Deps, { key }: GetOptions): Promise<number> {
  const profile = deps.settings.profile().value;
  const value = deps.settings.stored()[key];
  if (value === undefined) {
    throw new CrawlError(`${key} is not set in profile "${profile}"`, ExitCode.failure, {
      hint: key === 'api-key' ? `run \`${crawlCommand(deps, ['auth', 'login'])}\`` : `run \`${crawlCommand(deps, ['config', 'set', key])} <value>\``,
    });
  }
  if (deps.globals.json) writeJson(deps.io, JSON.stringify({ profile, key, value: shown(key, value) }));
  else deps.io.stdout.write(shown(key, value) + '\n');
  return ExitCode.ok;
}

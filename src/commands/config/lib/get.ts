import type { ConfigKey } from '../../../config/store.js';
import type { Deps } from '../../../deps.js';
import { CrawlError } from '../../../errors.js';
import { ExitCode } from '../../../exit-codes.js';
import { crawlCommand } from '../../shared/suggest.js';
import { shown } from './setting.js';

export interface GetOptions {
  key: ConfigKey;
}

export async function configGetRun(deps: Deps, { key }: GetOptions): Promise<number> {
  const profile = deps.settings.profile().value;
  const value = deps.settings.stored()[key];
  if (value === undefined) {
    throw new CrawlError(`${key} is not set in profile "${profile}"`, ExitCode.failure, {
      hint: key === 'api-key' ? `run \`${crawlCommand(deps, ['auth', 'login'])}\`` : `run \`${crawlCommand(deps, ['config', 'set', key])} <value>\``,
    });
  }
  if (deps.globals.json) deps.io.stdout.write(JSON.stringify({ profile, key, value: shown(key, value) }) + '\n');
  else deps.io.stdout.write(shown(key, value) + '\n');
  return ExitCode.ok;
}

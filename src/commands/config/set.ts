import { Argument, Command } from '@commander-js/extra-typings';
import type { ConfigKey } from '../../config/store.js';
import type { Deps } from '../../deps.js';
import { UsageError } from '../../errors.js';
import { ExitCode } from '../../exit-codes.js';
import { parseBaseUrl } from '../../http/url.js';
import { settingArgument } from './lib/setting.js';

export interface SetOptions {
  key: ConfigKey;
  value: string;
}

export function command(runF: (options: SetOptions) => Promise<void>) {
  return new Command('set')
    .description('set a setting of the profile (keys are stored with `crawl auth login`)')
    .addArgument(settingArgument('base-url'))
    .addArgument(new Argument('<value>', 'the value'))
    .action((key, value) => {
      if (key === 'api-key') {
        throw new UsageError('keys are never taken on the command line', 'store one with `crawl auth login --with-key < keyfile`');
      }
      return runF({ key, value });
    });
}

export async function run(deps: Deps, { key, value: given }: SetOptions): Promise<number> {
  // Stored as given (validated first), so `get` answers what `set` was told; every command
  // normalises the URL where it uses it.
  const value = given.trim();
  parseBaseUrl(value);
  const profile = deps.settings.profile().value;
  await deps.settings.store.update(profile, (p) => {
    p[key] = value;
  });
  if (deps.globals.json) deps.io.stdout.write(JSON.stringify({ profile, key, value }) + '\n');
  else deps.io.stderr.write(`Set ${key} of profile "${profile}" to ${value}\n`);
  return ExitCode.ok;
}

import type { ConfigKey } from '../../../config/store.js';
import type { Deps } from '../../../deps.js';
import { ExitCode } from '../../../exit-codes.js';
import { parseBaseUrl } from '../../../http/url.js';

export interface SetOptions {
  key: ConfigKey;
  value: string;
}

export async function setSetting(deps: Deps, { key, value: given }: SetOptions): Promise<number> {
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

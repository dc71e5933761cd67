import type { ConfigKey } from '../../../config/store.js';
import type { Deps } from '../../../deps.js';
import { ExitCode } from '../../../exit-codes.js';
import { writeJson } from '../../../io/json.js';

export interface UnsetOptions {
  key: ConfigKey;
}

export async function configUnsetRun(deps: Deps, { key }: UnsetOptions): Promise<number> {
  const profile = deps.settings.profile().value;
  const had = deps.settings.stored()[key] !== undefined;
  if (had) {
    await deps.settings.store.update(profile, (p) => {
      delete p[key];
      // Without its command, a command store holds nothing: the profile has no key (`auth login` gives it one).
      if (key === 'key-command' && p['key-store'] === 'command') delete p['key-store'];
    });
  }
  if (deps.globals.json) writeJson(deps.io, JSON.stringify({ profile, key, removed: had }));
  else deps.io.stderr.write(had ? `Removed ${key} from profile "${profile}"\n` : `${key} was not set in profile "${profile}"\n`);
  return ExitCode.ok;
}

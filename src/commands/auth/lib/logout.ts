import type { Deps } from '../../../deps.js';
import { ExitCode } from '../../../exit-codes.js';
import { writeJson } from '../../../io/json.js';

/** Forgets the profile's stored key (the key stays valid at the service; revoke it with `crawl keys revoke`). */
export type LogoutOptions = Record<string, never>;

export async function logOut(deps: Deps, _options: LogoutOptions): Promise<number> {
  const profile = deps.settings.profile().value;
  const had = deps.settings.stored()['api-key'] !== undefined;
  if (had) {
    await deps.settings.store.update(profile, (p) => {
      delete p['api-key'];
    });
  }
  if (deps.globals.json) {
    writeJson(deps.io, JSON.stringify({ profile, removed: had }));
  } else {
    deps.io.stderr.write(had ? `Removed the key of profile "${profile}"\n` : `No key was stored for profile "${profile}"\n`);
    if (deps.env.CRAWL_API_KEY) deps.io.stderr.write('note: CRAWL_API_KEY is still set in the environment\n');
  }
  return ExitCode.ok;
}

import type { Deps } from '../../../deps.js';
import { forgetProfileKey } from '../../../config/key-home.js';
import { ExitCode } from '../../../exit-codes.js';
import { writeJson } from '../../../io/json.js';

/**
 * Forgets the profile's key: removed from its store (the keyring entry deleted, the plaintext copy
 * dropped); for a key behind key-command, crawl forgets the commands and leaves the secret manager
 * alone. The key stays valid at the service: revoke it with `crawl keys revoke`.
 */
export type LogoutOptions = Record<string, never>;

export async function authLogoutRun(deps: Deps, _options: LogoutOptions): Promise<number> {
  const { profile, kind, description, removed, leftBehind } = await forgetProfileKey(deps.settings, deps.signal);
  if (deps.globals.json) {
    writeJson(deps.io, JSON.stringify({ profile, removed: kind !== undefined, keyRemovedFromStore: removed, keyStore: kind ?? null, keyLocation: description ?? null, ...(leftBehind === undefined ? {} : { leftBehind }) }));
  } else if (kind === undefined) {
    deps.io.stderr.write(`No key was stored for profile "${profile}"\n`);
  } else if (kind === 'command') {
    deps.io.stderr.write(`Profile "${profile}" no longer reads its key with key-command; the secret manager (${description ?? 'command'}) still holds it: remove it there if it should go\n`);
  } else {
    deps.io.stderr.write(
      removed
        ? `Removed the key of profile "${profile}" from the ${description}\n`
        : leftBehind === undefined
          ? `Profile "${profile}" forgot its key; the ${description} held none\n`
          : `Profile "${profile}" forgot its key\n`,
    );
  }
  if (!deps.globals.json && leftBehind !== undefined) deps.io.stderr.write(`crawl: warning: the profile forgot its key, but its keyring entry is still there: ${leftBehind}\n`);
  if (!deps.globals.json && deps.env.CRAWL_API_KEY) deps.io.stderr.write('note: CRAWL_API_KEY is still set in the environment\n');
  return ExitCode.ok;
}

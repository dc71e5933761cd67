import type { ConfigKey } from '../../../config/store.js';
import type { Deps } from '../../../deps.js';
import { ExitCode } from '../../../exit-codes.js';
import { isLoopbackHost, parseBaseUrl } from '../../../http/url.js';
import { sanitize } from '../../../text/sanitize.js';
import { writeJson } from '../../../io/json.js';
import { CrawlError, UsageError } from '../../../errors.js';
import { commandStore } from '../../../config/key-stores/open.js';
import { crawlCommand } from '../../shared/suggest.js';

export interface SetOptions {
  key: ConfigKey;
  value: string;
}

export async function configSetRun(deps: Deps, { key, value: given }: SetOptions): Promise<number> {
  // Stored as given (validated first), so `get` answers what `set` was told; every command
  // normalises the URL where it uses it.
  const value = given.trim();
  const profile = deps.settings.profile().value;
  let warning: string | undefined;
  if (key === 'base-url') {
    const url = parseBaseUrl(value);
    // Said now, not at the next command: that one would refuse to send the key there.
    if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
      warning = `commands will refuse to send the API key over plain http:// to ${sanitize(url.host)} unless given --allow-http: the key would cross the network in clear; use https:// if the service has it`;
    }
    await deps.settings.store.update(profile, (p) => {
      p[key] = value;
    });
  } else {
    if (value === '') throw new UsageError(`${key} needs a command`, `e.g. \`${crawlCommand(deps, ['config', 'set', 'key-command'])} 'op read op://ci/crawl/key'\``);
    if (key === 'key-command') {
      // The secret manager becomes the key's one home: a key kept elsewhere is dropped, so no copy lingers.
      const before = deps.settings.keyStore();
      const entry = before?.kind === 'keyring' ? before : undefined;
      if (before !== undefined && before.kind !== 'command') {
        // Dropped only once the secret manager is seen to hold that very key: else it would be lost.
        const held = await before.read(deps.signal);
        if (held !== undefined) {
          deps.redactor.add(held);
          const printed = await commandStore(value, deps.settings.stored()['key-store-command'], deps.settings.keyOptions).read(deps.signal);
          if (printed !== held) {
            throw new CrawlError(`the new key-command prints another key than the one profile "${profile}" keeps in the ${before.describe()}; nothing was changed`, ExitCode.failure, {
              hint: `put that key in the secret manager first (\`${crawlCommand(deps, ['auth', 'token'])}\` prints it), or forget it with \`${crawlCommand(deps, ['auth', 'logout'])}\`, then set key-command again`,
            });
          }
        }
      }
      await deps.settings.store.update(profile, (p) => {
        p['key-command'] = value;
        p['key-store'] = 'command';
        delete p['api-key'];
        delete p['keyring-service'];
        delete p['keyring-account'];
      });
      if (before?.kind === 'file') warning = `the plaintext key of profile "${profile}" was removed from the config file: the key now comes from key-command`;
      if (entry !== undefined) {
        try {
          await entry.erase(deps.signal);
          warning = `the key of profile "${profile}" was removed from the ${entry.describe()}: the key now comes from key-command`;
        } catch (error) {
          warning = `the key now comes from key-command; its old entry in the ${entry.describe()} could not be removed: ${error instanceof Error ? error.message : String(error)}`;
        }
      }
    } else {
      await deps.settings.store.update(profile, (p) => {
        p[key] = value;
      });
    }
  }
  if (deps.globals.json) {
    writeJson(deps.io, JSON.stringify({ profile, key, value, ...(warning === undefined ? {} : { warning }) }));
  } else {
    deps.io.stderr.write(`Set ${key} of profile "${profile}" to ${value}\n`);
    if (warning !== undefined) deps.io.stderr.write(`crawl: ${key === 'base-url' ? 'warning' : 'note'}: ${warning}\n`);
  }
  return ExitCode.ok;
}

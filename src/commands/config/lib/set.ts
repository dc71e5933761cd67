import type { ConfigKey } from '../../../config/store.js';
import type { Deps } from '../../../deps.js';
import { ExitCode } from '../../../exit-codes.js';
import { isLoopbackHost, parseBaseUrl } from '../../../http/url.js';
import { sanitize } from '../../../text/sanitize.js';
import { looksLikeBareKey } from '../../../text/keys.js';
import { writeJson } from '../../../io/json.js';
import { UsageError } from '../../../errors.js';
import { useKeyCommand } from '../../../config/key-home.js';
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
      const host = sanitize(url.host);
      // The flag is global, so commander takes it here too; it is a consent given per run, never
      // a setting, and one given here must not read as kept.
      warning = deps.globals.allowHttp
        ? `--allow-http is not kept: each command that sends the API key over plain http:// to ${host} needs it, as the key would cross the network in clear; use https:// if the service has it`
        : `commands will refuse to send the API key over plain http:// to ${host} unless given --allow-http: the key would cross the network in clear; use https:// if the service has it`;
    }
    await deps.settings.store.update(profile, (p) => {
      p[key] = value;
    });
  } else {
    if (value === '') throw new UsageError(`${key} needs a command`, `e.g. \`${crawlCommand(deps, ['config', 'set', 'key-command'])} 'op read op://ci/crawl/key'\``);
    // Stored, it would be run as a program at each command, and the shell's "not found" would
    // print it on every run; it is neither stored nor shown.
    if (looksLikeBareKey(value)) {
      throw new UsageError(`${key} takes a command that ${key === 'key-command' ? 'prints' : 'stores'} the key, not the key itself (what was given looks like one, and is not shown); nothing was stored`, `keep the key with \`${crawlCommand(deps, ['auth', 'login'])}\` (it reads the key from stdin), or name the secret manager's command: \`${crawlCommand(deps, ['config', 'set', key])} ${key === 'key-command' ? "'op read op://ci/crawl/key'" : "'vault kv put secret/crawl api-key=-'"}\``);
    }
    if (key === 'key-command') {
      const switched = await useKeyCommand(deps.settings, value, deps.signal);
      if (switched.droppedFrom !== undefined) {
        warning = switched.leftBehind === undefined
          ? `the key of profile "${profile}" was removed from the ${switched.droppedFrom}: the key now comes from key-command`
          : `the key now comes from key-command; ${switched.leftBehind}`;
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

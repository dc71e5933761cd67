import type { ConfigKey } from '../../../config/store.js';
import type { Deps } from '../../../deps.js';
import { ExitCode } from '../../../exit-codes.js';
import { isLoopbackHost, parseBaseUrl } from '../../../http/url.js';
import { sanitize } from '../../../text/sanitize.js';
import { writeJson } from '../../../io/json.js';

export interface SetOptions {
  key: ConfigKey;
  value: string;
}

export async function setSetting(deps: Deps, { key, value: given }: SetOptions): Promise<number> {
  // Stored as given (validated first), so `get` answers what `set` was told; every command
  // normalises the URL where it uses it.
  const value = given.trim();
  const url = parseBaseUrl(value);
  const profile = deps.settings.profile().value;
  await deps.settings.store.update(profile, (p) => {
    p[key] = value;
  });
  // Said now, not at the next command: that one would refuse to send the key there.
  const warning = url.protocol === 'http:' && !isLoopbackHost(url.hostname)
    ? `commands will refuse to send the API key over plain http:// to ${sanitize(url.host)} unless given --allow-http: the key would cross the network in clear; use https:// if the service has it`
    : undefined;
  if (deps.globals.json) {
    writeJson(deps.io, JSON.stringify({ profile, key, value, ...(warning === undefined ? {} : { warning }) }));
  } else {
    deps.io.stderr.write(`Set ${key} of profile "${profile}" to ${value}\n`);
    if (warning !== undefined) deps.io.stderr.write(`crawl: warning: ${warning}\n`);
  }
  return ExitCode.ok;
}

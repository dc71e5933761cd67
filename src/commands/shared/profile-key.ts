import type { KeyHome } from '../../api/rotation.js';
import type { Deps } from '../../deps.js';
import { ConfigStore } from '../../config/store.js';
import { CrawlError } from '../../errors.js';
import { ExitCode } from '../../exit-codes.js';
import { parseBaseUrl } from '../../http/url.js';
import { sanitize } from '../../text/sanitize.js';

/** The profile's key is no longer the one a command set out to replace (another crawl changed it). */
export class ProfileKeyChangedError extends CrawlError {
  constructor(path: string, profile: string) {
    super(`the key of profile "${profile}" in ${path} was changed by another crawl process meanwhile`, ExitCode.failure);
    this.name = 'ProfileKeyChangedError';
  }
}

/** The profile held another base URL, replaced by the one the key belongs to. */
export interface BaseUrlChange {
  from: string;
  to: string;
}

/**
 * Makes `key` the profile's key in the config file (written atomically, mode 0600, by the store),
 * then reads the file back: a key reported as stored must really be there.
 * `withBaseUrl`: the key is saved with the base URL it was made or checked against (from
 * --base-url or CRAWL_BASE_URL), replacing another one the profile held, which is reported: a
 * profile must never pair one service's URL with another service's key.
 * `replaces`: store only if the profile still holds this key (checked under the config's lock).
 */
export async function storeProfileKey(
  deps: Deps,
  key: string,
  options: { withBaseUrl: boolean; replaces?: string },
): Promise<{ profile: string; path: string; baseUrlChange: BaseUrlChange | undefined }> {
  const profile = deps.settings.profile().value;
  const store = deps.settings.store;
  let baseHref: string | undefined;
  if (options.withBaseUrl) {
    const base = deps.settings.requireBaseUrl();
    // From the config, it is already the profile's own (kept as it was written).
    if (base.source !== 'config') baseHref = parseBaseUrl(base.value).href;
  }
  let baseUrlChange: BaseUrlChange | undefined;
  await store.update(profile, (p) => {
    if (options.replaces !== undefined && p['api-key'] !== options.replaces) throw new ProfileKeyChangedError(store.path, profile);
    p['api-key'] = key;
    if (baseHref === undefined) return;
    const before = p['base-url'];
    if (before !== undefined && sameBaseUrl(before, baseHref)) return;
    if (before !== undefined) baseUrlChange = { from: before, to: baseHref };
    p['base-url'] = baseHref;
  });
  let readBack: string | undefined;
  try {
    readBack = new ConfigStore(store.path).profile(profile)['api-key'];
  } catch {
    readBack = undefined;
  }
  if (readBack !== key) {
    throw new CrawlError(`the config file ${store.path} does not hold the new key after writing it`, ExitCode.failure);
  }
  return { profile, path: store.path, baseUrlChange };
}

/**
 * The profile's key in the config file as the home a rotation writes the new key to: written over
 * the key it replaces (under the config's lock), and read back from the file itself.
 */
export function profileKeyHome(deps: Deps): KeyHome {
  const profile = deps.settings.profile().value;
  const path = deps.settings.store.path;
  return {
    describe: () => `the config file ${path} (profile "${profile}")`,
    read: () => {
      try {
        return Promise.resolve(new ConfigStore(path).profile(profile)['api-key']);
      } catch {
        return Promise.resolve(undefined);
      }
    },
    write: async (key, _signal, options = {}) => {
      await storeProfileKey(deps, key, { withBaseUrl: false, ...(options.replaces === undefined ? {} : { replaces: options.replaces }) });
    },
  };
}

export function describeBaseUrlChange(change: BaseUrlChange): string {
  return `base URL changed from ${sanitize(change.from)} to ${sanitize(change.to)}: the key belongs to that service`;
}

function sameBaseUrl(stored: string, href: string): boolean {
  try {
    return parseBaseUrl(stored).href === href;
  } catch {
    return false;
  }
}

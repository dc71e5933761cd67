import type { Context } from '../../cli/context.js';
import { ConfigStore } from '../../config/store.js';
import { CrawlError } from '../../errors.js';
import { ExitCode } from '../../exit-codes.js';
import { parseBaseUrl } from '../../http/url.js';

/** The profile's key is no longer the one a command set out to replace (another crawl changed it). */
export class ProfileKeyChangedError extends CrawlError {
  constructor(path: string, profile: string) {
    super(`the key of profile "${profile}" in ${path} was changed by another crawl process meanwhile`, ExitCode.failure);
    this.name = 'ProfileKeyChangedError';
  }
}

/**
 * Makes `key` the profile's key in the config file (written atomically, mode 0600, by the store),
 * then reads the file back: a key reported as stored must really be there.
 * `withBaseUrl` keeps the base URL the key belongs to, as `crawl auth login` does.
 * `replaces`: store only if the profile still holds this key (checked under the config's lock).
 */
export async function storeProfileKey(
  ctx: Context,
  key: string,
  options: { withBaseUrl: boolean; replaces?: string },
): Promise<{ profile: string; path: string }> {
  const profile = ctx.settings.profile().value;
  const store = ctx.settings.store;
  let baseHref: string | undefined;
  if (options.withBaseUrl) {
    const base = ctx.settings.requireBaseUrl();
    if (base.source === 'flag' || store.profile(profile)['base-url'] === undefined) baseHref = parseBaseUrl(base.value).href;
  }
  await store.update(profile, (p) => {
    if (options.replaces !== undefined && p['api-key'] !== options.replaces) throw new ProfileKeyChangedError(store.path, profile);
    p['api-key'] = key;
    if (baseHref !== undefined) p['base-url'] = baseHref;
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
  return { profile, path: store.path };
}

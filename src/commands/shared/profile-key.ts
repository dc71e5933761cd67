import type { KeyHome } from '../../api/rotation.js';
import type { Deps } from '../../deps.js';
import { saveProfileKey, type SaveResult, type StoreChoice } from '../../config/key-home.js';
import { parseBaseUrl } from '../../http/url.js';
import { sanitize } from '../../text/sanitize.js';

export { KeyChangedError as ProfileKeyChangedError } from '../../config/key-home.js';

/** The profile held another base URL, replaced by the one the key belongs to. */
export interface BaseUrlChange {
  from: string;
  to: string;
}

/**
 * Makes `key` the profile's key in the profile's own store (the keyring, the config file, or the
 * key-store-command), read back before the config records it (config/key-home.ts).
 * `withBaseUrl`: the key is saved with the base URL it was made or checked against (from
 * --base-url or CRAWL_BASE_URL), replacing another one the profile held, which is reported: a
 * profile must never pair one service's URL with another service's key.
 * `replaces`: store only if the profile still holds this key (checked under the config's lock).
 * `store`: where it goes (default: where the profile's key lives now).
 */
export async function storeProfileKey(
  deps: Deps,
  key: string,
  options: { withBaseUrl: boolean; replaces?: string; store?: StoreChoice; interruptible?: boolean },
): Promise<SaveResult> {
  let baseHref: string | undefined;
  if (options.withBaseUrl) {
    const base = deps.settings.requireBaseUrl();
    // From the config, it is already the profile's own (kept as it was written).
    if (base.source !== 'config') baseHref = parseBaseUrl(base.value).href;
  }
  const saved = await saveProfileKey(deps.settings, key, {
    store: options.store ?? 'current',
    ...(options.replaces === undefined ? {} : { replaces: options.replaces }),
    ...(baseHref === undefined ? {} : { baseHref }),
    // A key the service already made is stored even after Ctrl-C (only the stores' own time bounds
    // apply): an interrupt must not lose it. Logging in can stop at once: nothing was made.
    signal: options.interruptible === true ? deps.signal : new AbortController().signal,
  });
  if (saved.fellBackBecause !== undefined) {
    deps.io.stderr.write(`crawl: no system keyring is available (${saved.fellBackBecause}): the key is stored in plaintext in ${saved.path} (mode 0600)\n`);
  }
  if (saved.leftBehind !== undefined) deps.io.stderr.write(`crawl: warning: ${saved.leftBehind}\n`);
  return saved;
}

/**
 * The profile's key, wherever it lives (keyring, config file, key-store-command), as the home a
 * rotation writes the new key to: written over the key it replaces, through storeProfileKey,
 * which reads it back under the config's lock before the config records it. read() then answers
 * with what that read-back confirmed, so a key command is not run a third time.
 */
export function profileKeyHome(deps: Deps): KeyHome {
  const profile = deps.settings.profile().value;
  const path = deps.settings.store.path;
  const store = deps.settings.keyStore();
  const kind = store?.kind;
  let confirmed: string | undefined;
  return {
    ...(kind === undefined ? {} : { kind }),
    describe: () => `the ${store?.describe() ?? `config file ${path}`} (profile "${profile}")`,
    read: async (signal) => confirmed ?? (await deps.settings.keyStore()?.read(signal)),
    write: async (key, _signal, options = {}) => {
      await storeProfileKey(deps, key, { withBaseUrl: false, ...(options.replaces === undefined ? {} : { replaces: options.replaces }) });
      confirmed = key;
    },
  };
}

export function describeBaseUrlChange(change: BaseUrlChange): string {
  return `base URL changed from ${sanitize(change.from)} to ${sanitize(change.to)}: the key belongs to that service`;
}

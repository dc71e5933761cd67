/** The settings a profile holds in the config file, by the names `crawl config` takes. */
export type ConfigKey = 'base-url' | 'api-key' | 'key-store' | 'keyring-service' | 'keyring-account' | 'key-command' | 'key-store-command';
export const CONFIG_KEYS: readonly ConfigKey[] = ['base-url', 'api-key', 'key-store', 'keyring-service', 'keyring-account', 'key-command', 'key-store-command'];

/** What `crawl config set` takes; the rest is recorded by the commands that store a key. */
export const SETTABLE_KEYS: readonly ConfigKey[] = ['base-url', 'key-command', 'key-store-command'];

/** The settings a profile holds in the config file, by the names `crawl config` takes. */
export type ConfigKey = 'base-url' | 'api-key';
export const CONFIG_KEYS: readonly ConfigKey[] = ['base-url', 'api-key'];

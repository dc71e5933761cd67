/**
 * The settings a profile holds in the config file, by the names `crawl config` takes, with what
 * may set each instead of the profile (a global flag, an environment variable), whether it is a
 * secret, and whether `crawl config set` takes it (the rest is recorded by the commands that store
 * a key). `config get|set|unset|list`, completion and the config file's reader all go by this
 * table: a setting added here is listed, completed and kept by itself.
 */
export interface SettingSpec {
  readonly name: string;
  /** The global flag that wins over everything else, if there is one. */
  readonly flag?: string;
  /** The environment variable that wins over the profile's value, if there is one. */
  readonly env?: string;
  /** Shown masked by every command but `auth token`; never printed whole. */
  readonly secret?: boolean;
  /** `crawl config set` takes it. */
  readonly settable?: boolean;
  /** What commands use when nothing sets it. */
  readonly default?: string;
}

export const SETTINGS = [
  { name: 'base-url', flag: '--base-url', env: 'CRAWL_BASE_URL', settable: true },
  { name: 'api-key', env: 'CRAWL_API_KEY', secret: true },
  { name: 'key-store' },
  { name: 'keyring-service' },
  { name: 'keyring-account' },
  { name: 'key-command', settable: true },
  { name: 'key-store-command', settable: true },
] as const satisfies readonly SettingSpec[];

export type ConfigKey = (typeof SETTINGS)[number]['name'];
export const CONFIG_KEYS: readonly ConfigKey[] = SETTINGS.map((setting) => setting.name);

/** What `crawl config set` takes. */
export const SETTABLE_KEYS: readonly ConfigKey[] = (SETTINGS as readonly SettingSpec[]).filter((setting) => setting.settable).map((setting) => setting.name as ConfigKey);

export function settingSpec(name: ConfigKey): SettingSpec {
  return SETTINGS.find((setting) => setting.name === name) ?? { name };
}

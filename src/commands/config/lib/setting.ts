import { Argument } from '@commander-js/extra-typings';
import { CONFIG_KEYS, type ConfigKey } from '../../../config/setting-names.js';
import { UsageError } from '../../../errors.js';
import { keyDefect } from '../../../text/keys.js';
import { maskKey } from '../../../text/mask.js';

function configKey(name: string): ConfigKey {
  if ((CONFIG_KEYS as readonly string[]).includes(name)) return name as ConfigKey;
  throw new UsageError(`unknown config key "${name}"`, `known keys: ${CONFIG_KEYS.join(', ')}`);
}

/**
 * The `<key>` argument of `config get|set|unset`: one of the settings a profile holds. `offered`
 * (all of them by default) is what help lists and Tab completes; any setting is parsed, so a
 * command can refuse one with a hint of its own.
 */
export function settingArgument(description: string, offered: readonly ConfigKey[] = CONFIG_KEYS) {
  return new Argument('<key>', description).choices(offered).argParser(configKey);
}

/**
 * What `get`/`list` show: the key masked, always (`crawl auth token` prints it raw); a stored key
 * that no command would send is described instead, so no part of it reaches the terminal.
 */
export function shown(key: ConfigKey, value: string): string {
  if (key !== 'api-key') return value;
  const defect = keyDefect(value);
  return defect === undefined ? maskKey(value) : `(unusable: it ${defect})`;
}

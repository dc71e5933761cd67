// The `<key>` argument the config commands declare: help lists its choices, so it lives beside the
// declarations (lib/ is loaded only when a command runs).
import { Argument } from '@commander-js/extra-typings';
import { CONFIG_KEYS, type ConfigKey } from '../../config/setting-names.js';
import { UsageError } from '../../errors.js';

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

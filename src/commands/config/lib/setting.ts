import type { ConfigKey } from '../../../config/setting-names.js';
import { keyDefect } from '../../../text/keys.js';
import { maskKey } from '../../../text/mask.js';

/**
 * What `get`/`list` show: the key masked, always (`crawl auth token` prints it raw); a stored key
 * that no command would send is described instead, so no part of it reaches the terminal.
 */
export function shown(key: ConfigKey, value: string): string {
  if (key !== 'api-key') return value;
  const defect = keyDefect(value);
  return defect === undefined ? maskKey(value) : `(unusable: it ${defect})`;
}

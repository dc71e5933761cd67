import type { ApiKey } from './keys.js';
import { sanitize } from '../text/sanitize.js';

/** How a key is named in messages: `"ci" (key_123, crk_abcd1234)`; never the key itself. */
export function keyLabel(key: Pick<ApiKey, 'id' | 'name' | 'keyPrefix'>): string {
  const parts = [sanitize(key.id)];
  if (typeof key.keyPrefix === 'string' && key.keyPrefix !== '') parts.push(sanitize(key.keyPrefix));
  const name = typeof key.name === 'string' ? `"${sanitize(key.name)}" ` : '';
  return `${name}(${parts.join(', ')})`;
}

// Which listed key is the one in use, and when nobody can tell (identifyKeyInUse, mayBeInUse).
import { describe, expect, it } from 'vitest';
import { identifyKeyInUse, mayBeInUse, type ApiKey } from '../../src/api/keys.js';

const KEY = 'crk_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd';
const k = (id: string, keyPrefix: unknown): ApiKey => ({ id, name: id, keyPrefix });

describe('identifyKeyInUse', () => {
  it('one listed prefix begins the key: unique', () => {
    const keys = [k('a', 'crk_AbCdEfGh'), k('b', 'crk_ZZZZZZZZ'), k('c', undefined), k('d', '')];
    expect(identifyKeyInUse(keys, KEY)).toEqual({ kind: 'unique', key: keys[0] });
    expect(mayBeInUse(identifyKeyInUse(keys, KEY))).toEqual([keys[0]]);
  });

  it('two keys with the same prefix: ambiguous, both candidates', () => {
    const keys = [k('a', 'crk_AbCdEfGh'), k('b', 'crk_AbCdEfGh'), k('c', 'crk_ZZZZZZZZ')];
    const found = identifyKeyInUse(keys, KEY);
    expect(found.kind).toBe('ambiguous');
    expect(mayBeInUse(found).map((x) => x.id)).toEqual(['a', 'b']);
  });

  it('one prefix beginning another, both beginning the key: ambiguous, whichever is longer or listed first', () => {
    for (const keys of [
      [k('short', 'crk_AbCd'), k('long', 'crk_AbCdEfGh')],
      [k('long', 'crk_AbCdEfGh'), k('short', 'crk_AbCd')],
      [k('a', 'c'), k('b', 'crk_'), k('c', 'crk_AbCdEfGhIjKl')],
    ]) {
      const found = identifyKeyInUse(keys, KEY);
      expect(found.kind, JSON.stringify(keys)).toBe('ambiguous');
      expect(mayBeInUse(found)).toHaveLength(keys.length);
    }
  });

  it('a prefix beginning another that does not begin the key is no candidate', () => {
    const keys = [k('a', 'crk_AbCd'), k('b', 'crk_AbCdXXXX')];
    expect(identifyKeyInUse(keys, KEY)).toEqual({ kind: 'unique', key: keys[0] });
  });

  it('no key, or no prefix matching: none', () => {
    expect(identifyKeyInUse([k('a', 'crk_AbCd')], undefined)).toEqual({ kind: 'none' });
    expect(identifyKeyInUse([k('a', 'crk_ZZZZ')], KEY)).toEqual({ kind: 'none' });
    expect(mayBeInUse({ kind: 'none' })).toEqual([]);
  });
});


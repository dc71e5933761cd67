// What looks like a full key on the command line.
import { describe, expect, it } from 'vitest';
import { type ApiKey } from '../../src/api/keys.js';
import { isKnownKeyOrShape, looksLikeFullKey } from '../../src/api/key-match.js';
import { keyScheme, shapedLike } from '../../src/text/keys.js';

const KEY = 'crk_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd';
const k = (id: string, keyPrefix: unknown): ApiKey => ({ id, name: id, keyPrefix });

describe('what looks like a full key on the command line', () => {
  it("the configured key's shape: same <letters>_ start, at least as long", () => {
    expect(keyScheme(KEY)).toBe('crk_');
    expect(keyScheme('nounderscore')).toBeUndefined();
    expect(shapedLike('crk_' + 'x'.repeat(KEY.length - 4), KEY)).toBe(true);
    expect(shapedLike('crk_' + 'x'.repeat(KEY.length), KEY)).toBe(true);
    expect(shapedLike('crk_' + 'x'.repeat(KEY.length - 5), KEY)).toBe(false);
    expect(shapedLike('key_' + 'x'.repeat(KEY.length), KEY)).toBe(false);
    expect(shapedLike('crk_AbCdEfGh', KEY)).toBe(false);
    expect(shapedLike(KEY, 'nounderscorekey')).toBe(false);
  });

  it('a known key, or the shape, without the list', () => {
    expect(isKnownKeyOrShape(KEY, [], KEY)).toBe(true);
    expect(isKnownKeyOrShape('other-secret-value', ['other-secret-value'], KEY)).toBe(true);
    expect(isKnownKeyOrShape('key_8576984ed62f', ['other'], KEY)).toBe(false);
    expect(isKnownKeyOrShape('crk_AbCd', [''], KEY)).toBe(false);
    expect(isKnownKeyOrShape('crk_AbCd', [], undefined)).toBe(false);
  });

  it('longer than a listed prefix and beginning with it', () => {
    const keys = [k('a', 'xyz_1234abcd')];
    expect(looksLikeFullKey(keys, 'xyz_1234abcdEFGH')).toBe(true);
    expect(looksLikeFullKey(keys, 'xyz_1234abcd')).toBe(false);
    expect(looksLikeFullKey(keys, 'xyz_12')).toBe(false);
  });
});

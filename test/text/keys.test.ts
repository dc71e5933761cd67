// Which created keys are usable: what an Authorization header can carry.
import { describe, expect, it } from 'vitest';
import { isUsableKey } from '../../src/text/keys.js';

const KEY = 'crk_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd';

describe('isUsableKey', () => {
  it('takes visible ASCII only', () => {
    expect(isUsableKey(KEY)).toBe(true);
    expect(isUsableKey('crk_a-b.c~d!')).toBe(true);
    for (const bad of [
      'crk_ab\u001b[31mcd', // ESC sequence
      'crk_ab\ncd',
      'crk_ab\rcd',
      'crk_ab cd',
      'crk_ab\tcd',
      'crk_ab\u200bcd', // zero-width space
      'crk_ab\u202ecd', // right-to-left override
      'crk_ab\u2066cd', // isolate
      'crk_ab\u{e0041}cd', // tag character
      'crk_abé',
      'crk_ab\u007fcd',
      'crk_ab\u0085cd',
      '',
    ]) {
      expect(isUsableKey(bad), JSON.stringify(bad)).toBe(false);
    }
  });
});

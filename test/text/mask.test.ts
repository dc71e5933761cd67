// maskKey: what of a key may be shown.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { maskKey } from '../../src/text/mask.js';

describe('maskKey', () => {
  it('keeps a recognisable start and hides the rest', () => {
    const key = 'crk_' + 'A'.repeat(8) + 'secretTAIL'.repeat(3);
    const masked = maskKey(key);
    expect(masked).toBe(key.slice(0, 12) + '…****');
    expect(masked).not.toContain('secretTAIL');
  });

  it('hides short keys entirely', () => {
    expect(maskKey('crk_abc')).toBe('*******');
    expect(maskKey('')).toBe('');
  });

  it('never shows more than a third of the key, nor more than 12 characters', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 0, maxLength: 200 }), (key) => {
        const masked = maskKey(key);
        const visible = masked.replace(/…?\**$/, '');
        expect(visible.length).toBeLessThanOrEqual(Math.min(12, Math.floor(key.length / 3)));
        expect(key.startsWith(visible)).toBe(true);
        if (key.length > 8) expect(masked).not.toBe(key);
      }),
    );
  });
});

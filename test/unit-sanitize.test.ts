import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sanitize } from '../src/output/sanitize.js';

// Any character a terminal could act on: C0, DEL, C1, and bidi overrides that reorder text.
// eslint-disable-next-line no-control-regex
const DANGEROUS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
// Text dense in the characters that matter: controls, C1 and the bidi block, plus ordinary letters.
const risky = fc.string({ unit: fc.integer({ min: 0, max: 0x206f }).map((c) => String.fromCharCode(c)), maxLength: 200 });

describe('sanitize', () => {
  it('removes escape sequences introducers, BEL, C1 CSI, tabs and newlines', () => {
    expect(sanitize('a\u001b[31mred\u001b[0m')).toBe('a[31mred[0m');
    expect(sanitize('title\u001b]0;pwned\u0007')).toBe('title]0;pwned');
    expect(sanitize('x\u009b2Jy')).toBe('x2Jy');
    expect(sanitize('a\tb\nc\r\nd')).toBe('abcd');
    expect(sanitize('evil\u202egnp.exe')).toBe('evilgnp.exe');
    expect(sanitize('a\u061cb\u2067c\u2069')).toBe('abc');
  });

  it('keeps ordinary Unicode text as it is', () => {
    const text = 'Ünïcödé — 日本語 ✓ emoji 🚀';
    expect(sanitize(text)).toBe(text);
  });

  it('renders non-strings: nothing for null/undefined, JSON for objects', () => {
    expect(sanitize(null)).toBe('');
    expect(sanitize(undefined)).toBe('');
    expect(sanitize(42)).toBe('42');
    expect(sanitize(false)).toBe('false');
    expect(sanitize({ a: '\u001b' })).toBe('{"a":"\\u001b"}');
  });

  it('never lets a dangerous character through, whatever the input', () => {
    fc.assert(
      fc.property(risky, (text) => {
        expect(sanitize(text)).not.toMatch(DANGEROUS);
      }),
    );
  });

  it('never lets one through from any value: every code point (astral, lone surrogates), numbers, objects', () => {
    const anyValue = fc.oneof(fc.string({ unit: 'binary' }), fc.anything({ maxDepth: 2, withNullPrototype: true }), risky);
    fc.assert(
      fc.property(anyValue, (value) => {
        expect(sanitize(value)).not.toMatch(DANGEROUS);
      }),
      { numRuns: 300 },
    );
  });

  it('shows a value nested too deeply for JSON.stringify as a placeholder, without throwing', () => {
    const value = JSON.parse('['.repeat(20_000) + ']'.repeat(20_000)) as unknown;
    expect(sanitize(value)).toBe('(too deeply nested to show)');
  });

  it('removes only those characters: the rest of the text is kept, in order', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        expect(sanitize(text)).toBe([...text].filter((c) => !DANGEROUS.test(c)).join(''));
      }),
    );
  });

  it('is idempotent', () => {
    fc.assert(
      fc.property(risky, (text) => {
        expect(sanitize(sanitize(text))).toBe(sanitize(text));
      }),
    );
  });
});

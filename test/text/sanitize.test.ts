import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sanitize, sanitize as reexported, sanitizeLines } from '../../src/text/sanitize.js';
import { anyString } from '../support/arbitraries.js';

// Any character a terminal acts on or that is not shown as itself: controls (Cc), format
// characters (Cf: bidi controls, zero-width characters, soft hyphen, BOM, tags), line and
// paragraph separators (Zl, Zp), and the whole tag block (U+E0000 is unassigned, not Cf).
const DANGEROUS = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u{E0000}-\u{E007F}]/u;
// Text dense in the characters that matter: controls, C1, the general punctuation block (bidi,
// zero-width, separators), specials (U+FFF9...) and the tag block, plus ordinary letters.
const riskyChar = fc.oneof(
  fc.integer({ min: 0, max: 0x20ff }),
  fc.integer({ min: 0xfe00, max: 0xffff }),
  fc.integer({ min: 0xe0000, max: 0xe0080 }),
  fc.integer({ min: 0x110bd, max: 0x110be }),
).map((c) => String.fromCodePoint(c));
const risky = fc.string({ unit: riskyChar, maxLength: 200 });

describe('sanitize', () => {
  it('removes escape sequences introducers, BEL, C1 CSI, tabs and newlines', () => {
    expect(sanitize('a\u001b[31mred\u001b[0m')).toBe('a[31mred[0m');
    expect(sanitize('title\u001b]0;pwned\u0007')).toBe('title]0;pwned');
    expect(sanitize('x\u009b2Jy')).toBe('x2Jy');
    expect(sanitize('a\tb\nc\r\nd')).toBe('abcd');
    expect(sanitize('evil\u202egnp.exe')).toBe('evilgnp.exe');
    expect(sanitize('a\u061cb\u2067c\u2069')).toBe('abc');
  });

  it('removes invisible format characters that hide or split text: zero-width, soft hyphen, BOM, tags, separators', () => {
    expect(sanitize('c\u200br\u200ck\u200d_\u2060k\ufeffe\u00ady')).toBe('crk_key');
    expect(sanitize('a\u{E0001}b\u{E0041}c\u{E007F}d\u{E0000}e')).toBe('abcde');
    expect(sanitize('line\u2028break\u2029here')).toBe('linebreakhere');
    expect(sanitize('x\u180ey\ufff9z\u{110BD}')).toBe('xyz');
    expect(reexported('a\u200bb')).toBe('ab');
  });

  it('keeps ordinary Unicode text as it is', () => {
    const text = 'Ünïcödé — 日本語 ✓ emoji 🚀 👍🏽 e\u0301 ☺️ 🇺🇸';
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
    const anyValue = fc.oneof(anyString(), fc.anything({ maxDepth: 2, withNullPrototype: true }), risky);
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
      fc.property(anyString(), (text) => {
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

describe('sanitizeLines (--jq output on a terminal)', () => {
  it('drops what sanitize drops but the tabs and line feeds of the text (a carriage return too)', () => {
    expect(sanitizeLines('a\tb\nc\r\nd')).toBe('a\tb\nc\nd');
    expect(sanitizeLines('title\u001b]0;pwned\u0007\nx\u009b2Jy')).toBe('title]0;pwned\nx2Jy');
    expect(sanitizeLines('evil\u202egnp\u200b.exe\u{E0041}\u2028')).toBe('evilgnp.exe');
  });

  it('never lets a dangerous character through, and keeps every tab and line feed', () => {
    fc.assert(
      fc.property(risky, (text) => {
        const shown = sanitizeLines(text);
        expect(shown.replace(/[\t\n]/g, '')).not.toMatch(DANGEROUS);
        expect(shown.replace(/[^\t\n]/g, '')).toBe(text.replace(/[^\t\n]/g, ''));
      }),
    );
  });
});


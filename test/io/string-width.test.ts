// displayWidth: the columns text takes on a terminal (string-width).
import { describe, expect, it } from 'vitest';
import { displayWidth } from '../../src/io/string-width.js';

describe('displayWidth (string-width)', () => {
  it.each([
    ['', 0],
    ['plain ascii', 11],
    ['\u001b[1mbold\u001b[22m', 4],
    ['日本語', 6],
    ['ｆｕｌｌ', 8],
    ['한국어', 6],
    ['e\u0301', 1],
    ['🚀', 2],
    ['👍🏽', 2],
    ['✌🏿', 2],
    ['☺️', 2],
    ['🇺🇸', 2],
    ['1️⃣', 2],
    ['ünïcödé ✓', 9],
    // Sequences the hand-written measure this replaced got wrong: a ZWJ family, a Thai mark, a soft hyphen.
    ['👩‍👩‍👧', 2],
    ['ก่', 1],
    ['a\u00adb', 2],
  ])('%j is %i columns', (text, width) => {
    expect(displayWidth(text)).toBe(width);
  });
});

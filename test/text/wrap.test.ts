// wrapWords: lines broken at spaces, by display width.
import { describe, expect, it } from 'vitest';
import { wrapWords } from '../../src/text/wrap.js';

describe('wrapWords', () => {
  it('breaks at spaces within the width; a longer word gets a line of its own', () => {
    expect(wrapWords('the quick brown fox jumps', 10)).toEqual(['the quick', 'brown fox', 'jumps']);
    expect(wrapWords('a https://example.com/very/long b', 10)).toEqual(['a', 'https://example.com/very/long', 'b']);
    expect(wrapWords('', 10)).toEqual(['']);
  });
});

// The linear-work check of test/support/linear.ts: it tells a scan that reads each character once
// from one that goes back over the text from every place it starts at.
import { describe, expect, it } from 'vitest';
import { byteWork, expectLinearReads, stringReads, WorkLimitExceeded } from './linear.js';

/** How many places hold an `a` (one read a place). */
function linear(text: string): number {
  let found = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 0x61) found++;
  return found;
}

/** For every place, how far the run of `a` and `b` from there goes (a read a place of each run). */
function quadratic(text: string): number {
  let longest = 0;
  for (let i = 0; i < text.length; i++) {
    let j = i;
    while (j < text.length && 'ab'.includes(text.charAt(j))) j++;
    longest = Math.max(longest, j - i);
  }
  return longest;
}

/** For every place, whether a `z` follows it: one search a place, each to the end of the text. */
function searchesFromEveryPlace(text: string): number {
  let found = 0;
  for (let i = 0; i < text.length; i++) if (text.indexOf('z', i) !== -1) found++;
  return found;
}

/** The same with a regular expression run from every place. */
function regexpFromEveryPlace(text: string): number {
  const z = /z/g;
  let found = 0;
  for (let i = 0; i < text.length; i++) {
    z.lastIndex = i;
    if (z.test(text)) found++;
  }
  return found;
}

describe('expectLinearReads', () => {
  it('counts the reads of a string, and only while the work runs', () => {
    const charCodeAt = String.prototype.charCodeAt;
    expect(stringReads(() => linear('abcabc'))).toBe(6);
    expect(stringReads(() => undefined)).toBe(0);
    expect(String.prototype.charCodeAt).toBe(charCodeAt);
  });

  it('passes work linear in the text, and fails work quadratic in it', () => {
    expectLinearReads((n) => linear('ab'.repeat(n)), 10);
    expect(() => expectLinearReads((n) => quadratic('ab'.repeat(n)), 10)).toThrow(/reads for 10, 20 and 30 repeats/);
  });

  it('counts what a search or a regular expression reads, not only that it ran: a search from every place fails', () => {
    expect(stringReads(() => 'abcz'.indexOf('z'))).toBe(4);
    expect(stringReads(() => /c/.test('abcz'))).toBe(3);
    expect(stringReads(() => 'a-b-c'.replace(/-/g, ''))).toBe(5);
    // One search each time round, as many as the places: counted by calls alone, these pass.
    expect(() => expectLinearReads((n) => searchesFromEveryPlace('ab'.repeat(n)), 10)).toThrow(/reads for 10, 20 and 30 repeats/);
    expect(() => expectLinearReads((n) => regexpFromEveryPlace('ab'.repeat(n)), 10)).toThrow(/reads for 10, 20 and 30 repeats/);
  });
});

describe('byteWork', () => {
  it('counts the bytes read through Buffer methods and the values put into arrays', () => {
    const buf = Buffer.from('hello\0world');
    expect(byteWork(() => buf.readUInt32LE(0))).toBe(4);
    expect(byteWork(() => buf.indexOf(0, 2))).toBe(4);
    expect(byteWork(() => buf.toString('utf8', 6, 11))).toBe(5);
    expect(byteWork(() => [].push(1 as never, 2 as never))).toBe(2);
    // Restored afterwards: nothing is counted outside.
    expect(Object.prototype.hasOwnProperty.call(Buffer.prototype, 'readUInt32LE')).toBe(true);
  });

  it('stops a loop that reads nothing but makes values, past its limit, instead of letting it run for ever', () => {
    const items: unknown[] = [];
    expect(() =>
      byteWork(() => {
        for (;;) items.push([]);
      }, 1000),
    ).toThrow(WorkLimitExceeded);
    expect(items.length).toBe(1000);
    expect([].push(1 as never)).toBe(1);
  });
});

// How a test shows that some work on text grows linearly with it: by counting the work, never by
// timing it. What is counted is the characters read: every call that reads a string (a character
// at a place, a search from a place, a piece of it) and every regular expression run over one
// (test, exec, and the replace, match and split that use them) adds the span of text it covered.
// A loop over text in src/ reads it through one of these, so a matcher that went back over the
// text for every place it starts from, one step or one search at a time, reads more with every
// repeat of its input.
//
// The input is a pattern repeated: its cost is measured for `size`, twice and three times as many
// repeats. Linear work is a + b·n, so the repeats added each time cost exactly the same; quadratic
// work costs more for the second lot than for the first.
import { expect } from 'vitest';

type Method = (this: unknown, ...args: unknown[]) => unknown;

/** A found place, or where the search gave up: how far a search from `from` read. */
const searched = (text: string, from: number, found: number, needle: unknown): number =>
  (found === -1 ? text.length : found + String(needle).length) - Math.max(0, Math.min(from, text.length));

/** For each method that reads a string: the characters one call read, from its arguments and result. */
const SPANS: Record<string, (text: string, args: unknown[], result: unknown) => number> = {
  at: () => 1,
  charAt: () => 1,
  charCodeAt: () => 1,
  codePointAt: () => 1,
  indexOf: (text, [needle, from], found) => searched(text, Number(from ?? 0) || 0, found as number, needle),
  includes: (text, [needle, from]) => searched(text, Number(from ?? 0) || 0, text.indexOf(String(needle), Number(from ?? 0) || 0), needle),
  lastIndexOf: (text, [needle, from], found) => Math.min(Number(from ?? text.length) || text.length, text.length) - Math.max(found as number, 0) + String(needle).length,
  startsWith: (_text, [prefix]) => String(prefix).length,
  endsWith: (_text, [suffix]) => String(suffix).length,
  slice: (_text, _args, piece) => (piece as string).length,
  substring: (_text, _args, piece) => (piece as string).length,
};

/**
 * The characters `work` reads, of whatever string (it runs synchronously, so nothing else is
 * counted with it). A regular expression's run counts from where it starts to the end of its
 * match, or to the end of the text when none: what its engine read at the least.
 */
export function stringReads(work: () => unknown): number {
  const strings = String.prototype as unknown as Record<string, Method>;
  const regexps = RegExp.prototype as unknown as Record<string, Method>;
  const originals = Object.keys(SPANS).map((name) => [name, strings[name] as Method] as const);
  const exec = regexps.exec as Method;
  let reads = 0;
  let counting = true;
  for (const [name, original] of originals) {
    const span = SPANS[name] as (text: string, args: unknown[], result: unknown) => number;
    strings[name] = function (this: unknown, ...args: unknown[]) {
      const result = original.apply(this, args);
      if (counting) {
        // The span is worked out with the real methods, uncounted.
        counting = false;
        reads += span(String(this), args, result);
        counting = true;
      }
      return result;
    };
  }
  // test, and String's replace, match, matchAll, search and split with a RegExp, all call exec.
  regexps.exec = function (this: unknown, text: unknown) {
    const regexp = this as RegExp;
    const subject = String(text);
    const from = regexp.global || regexp.sticky ? regexp.lastIndex : 0;
    const match = exec.call(regexp, subject) as RegExpExecArray | null;
    if (counting) reads += (match === null ? subject.length : match.index + match[0].length) - Math.min(from, subject.length);
    return match;
  };
  try {
    const result = work();
    if (result instanceof Promise) throw new Error('stringReads counts synchronous work only');
  } finally {
    for (const [name, original] of originals) strings[name] = original;
    regexps.exec = exec;
  }
  return reads;
}

/**
 * Fails unless `run(n)`'s string reads are a + b·n: the same for each `size` more repeats, and
 * some (so that the work is counted at all).
 */
export function expectLinearReads(run: (repeats: number) => unknown, size: number): void {
  const [c1, c2, c3] = [size, 2 * size, 3 * size].map((n) => stringReads(() => run(n))) as [number, number, number];
  expect(c2 - c1, `reads for ${size}, ${2 * size} and ${3 * size} repeats: ${c1}, ${c2}, ${c3}`).toBeGreaterThan(0);
  expect(c3 - c2, `reads for ${size}, ${2 * size} and ${3 * size} repeats: ${c1}, ${c2}, ${c3}`).toBe(c2 - c1);
}

/** Thrown by byteWork once the work passes its limit: a decoder that would never stop fails instead. */
export class WorkLimitExceeded extends Error {
  constructor(limit: number) {
    super(`more than ${limit} units of work`);
    this.name = 'WorkLimitExceeded';
  }
}

type BufferMethod = (this: Buffer, ...args: unknown[]) => unknown;

/** For each method that reads a Buffer: the bytes one call covered, from its arguments and result. */
const BUFFER_SPANS: Record<string, (buf: Buffer, args: unknown[], result: unknown) => number> = {
  ...Object.fromEntries(['readUInt8', 'readInt8'].map((name) => [name, () => 1])),
  ...Object.fromEntries(['readUInt16LE', 'readUInt16BE', 'readInt16LE', 'readInt16BE'].map((name) => [name, () => 2])),
  ...Object.fromEntries(['readUInt32LE', 'readUInt32BE', 'readInt32LE', 'readInt32BE'].map((name) => [name, () => 4])),
  ...Object.fromEntries(['readBigInt64LE', 'readBigInt64BE', 'readBigUInt64LE', 'readBigUInt64BE', 'readDoubleLE', 'readDoubleBE'].map((name) => [name, () => 8])),
  indexOf: (buf: Buffer, args: unknown[], found: unknown) => Math.max(1, (found === -1 ? buf.length : (found as number) + 1) - Number(args[1] ?? 0)),
  toString: (buf: Buffer, args: unknown[]) => Math.max(1, Number(args[2] ?? buf.length) - Number(args[1] ?? 0)),
  subarray: () => 1,
};

/**
 * The work a decoder does on bytes, counted rather than timed: every byte a Buffer method reads
 * (a number, a search, a piece of text), and every value it puts into an array (a decoded element
 * or member, which a loop that reads nothing still makes). Past `limit` it throws
 * WorkLimitExceeded out of `work`, so a loop that would never end fails the test instead of
 * holding it. `work` runs synchronously.
 */
export function byteWork(work: () => unknown, limit = Number.POSITIVE_INFINITY): number {
  const proto = Buffer.prototype as unknown as Record<string, BufferMethod>;
  const arrays = Array.prototype as unknown as Record<string, (...items: unknown[]) => number>;
  const originals = Object.keys(BUFFER_SPANS).map((name) => [name, proto[name] as BufferMethod, Object.prototype.hasOwnProperty.call(proto, name)] as const);
  const push = arrays.push as (...items: unknown[]) => number;
  let units = 0;
  let counting = true;
  const add = (n: number): void => {
    units += n;
    if (units > limit) {
      counting = false;
      throw new WorkLimitExceeded(limit);
    }
  };
  for (const [name, original] of originals) {
    const span = BUFFER_SPANS[name] as (buf: Buffer, args: unknown[], result: unknown) => number;
    proto[name] = function (this: Buffer, ...args: unknown[]) {
      const result = original.apply(this, args);
      if (counting) {
        counting = false;
        const n = span(this, args, result);
        counting = true;
        add(n);
      }
      return result;
    };
  }
  arrays.push = function (this: unknown[], ...items: unknown[]) {
    if (counting) add(items.length);
    return push.apply(this, items);
  };
  try {
    const result = work();
    if (result instanceof Promise) throw new Error('byteWork counts synchronous work only');
  } finally {
    counting = false;
    for (const [name, original, own] of originals) {
      if (own) proto[name] = original;
      else delete proto[name];
    }
    arrays.push = push;
  }
  return units;
}

import fc from 'fast-check';
import { CrawlError } from '../../src/errors.js';

/**
 * Any code point, NUL and lone surrogates included, half the time ASCII (where the special
 * characters of JSON, shells and terminals are). In place of fast-check's 'binary' unit, which
 * builds a table on first use that costs more than the tests that use it.
 */
export const anyChar: fc.Arbitrary<string> = fc
  .oneof(fc.integer({ min: 0, max: 0x7f }), fc.integer({ min: 0x80, max: 0x10ffff }))
  .map((c) => String.fromCodePoint(c));

/** Any string, as `fc.string({ unit: 'binary' })` would give. */
export function anyString(constraints: { minLength?: number; maxLength?: number } = {}): fc.Arbitrary<string> {
  return fc.string({ ...constraints, unit: anyChar });
}

/** Any text, JSON of any shape, and JSON shaped almost like what the parsers expect. */
export const anyText: fc.Arbitrary<string> = fc.oneof(anyString(), fc.json(), fc.string({ unit: 'binary-ascii', maxLength: 400 }));

/** Runs `fn`; a CrawlError is an answer too, anything else thrown fails the property. */
export function outcome<T>(fn: () => T): { value: T } | { error: CrawlError } {
  try {
    return { value: fn() };
  } catch (error) {
    if (error instanceof CrawlError) return { error };
    throw error;
  }
}

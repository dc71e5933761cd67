import fc from 'fast-check';

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

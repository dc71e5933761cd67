// How a test shows that some work on text grows linearly with it: by counting the work, never by
// timing it. What is counted is every call that reads a string (a character at a place, a search
// from a place, a piece of it): a loop over text in src/ reads it through one of these each time
// round, so a matcher that went back over the text for every place it starts from would make
// more of them with every repeat of its input.
//
// The input is a pattern repeated: its cost is measured for `size`, twice and three times as many
// repeats. Linear work is a + b·n, so the repeats added each time cost exactly the same; quadratic
// work costs more for the second lot than for the first.
import { expect } from 'vitest';

/** The methods of String.prototype that read a string: what a loop over text calls each time round. */
const READS = ['at', 'charAt', 'charCodeAt', 'codePointAt', 'endsWith', 'includes', 'indexOf', 'lastIndexOf', 'slice', 'startsWith', 'substring'] as const;

type Method = (this: string, ...args: unknown[]) => unknown;

/**
 * The calls `work` makes to read a string, whatever string (it runs synchronously, so nothing
 * else is counted with it).
 */
export function stringReads(work: () => unknown): number {
  const proto = String.prototype as unknown as Record<string, Method>;
  const originals = READS.map((name) => [name, proto[name] as Method] as const);
  let reads = 0;
  for (const [name, original] of originals) {
    proto[name] = function (this: string, ...args: unknown[]) {
      reads++;
      return original.apply(this, args);
    };
  }
  try {
    const result = work();
    if (result instanceof Promise) throw new Error('stringReads counts synchronous work only');
  } finally {
    for (const [name, original] of originals) proto[name] = original;
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

// "Did you mean" distances: edits, swaps of neighbours, and which candidate a typo is closest to.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { closestWord, editDistance } from '../../src/text/similar.js';

const COMMANDS = ['status', 'watch', 'pages', 'cancel'];

/** closestWord's rule, measured against every candidate whatever its length. */
function closestByMeasuringAll(word: string, candidates: readonly string[]): string | undefined {
  let best: { word: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate);
    if (distance > 2 || distance >= Math.max(2, Math.ceil(candidate.length / 2))) continue;
    if (best === undefined || distance < best.distance) best = { word: candidate, distance };
  }
  return best?.word;
}

describe('editDistance', () => {
  it('counts an insertion, a deletion, a replacement and a swap of neighbours as one edit each', () => {
    expect(editDistance('status', 'status')).toBe(0);
    expect(editDistance('stauts', 'status')).toBe(1);
    expect(editDistance('statu', 'status')).toBe(1);
    expect(editDistance('statuss', 'status')).toBe(1);
    expect(editDistance('stotus', 'status')).toBe(1);
    expect(editDistance('', 'watch')).toBe(5);
    expect(editDistance('wtach', 'watch')).toBe(1);
  });

  it('is at least the difference of the lengths (what closestWord skips on)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), (a, b) => {
        expect(editDistance(a, b)).toBeGreaterThanOrEqual(Math.abs(a.length - b.length));
      }),
    );
  });
});

describe('closestWord', () => {
  it('a typo of a command, but not a job id or a word that is only near by a few letters', () => {
    expect(closestWord('stauts', COMMANDS)).toBe('status');
    expect(closestWord('WTACH', COMMANDS)).toBe('watch');
    expect(closestWord('page', COMMANDS)).toBe('pages');
    expect(closestWord('list', COMMANDS)).toBeUndefined();
    expect(closestWord('demo-small', COMMANDS)).toBeUndefined();
    expect(closestWord('7d2f0c1e-4b1a-4c55-9d0e-2f6a1b3c4d5e', COMMANDS)).toBeUndefined();
  });

  it('answers as if it had measured every candidate', () => {
    const word = fc.oneof(fc.constantFrom(...COMMANDS).chain((c) => fc.tuple(fc.constant(c), fc.nat(c.length), fc.string({ maxLength: 3 })).map(([w, at, s]) => w.slice(0, at) + s + w.slice(at + 1))), fc.string({ maxLength: 10 }));
    fc.assert(
      fc.property(word, (w) => {
        expect(closestWord(w, COMMANDS)).toBe(closestByMeasuringAll(w, COMMANDS));
      }),
      { numRuns: 500 },
    );
  });
});

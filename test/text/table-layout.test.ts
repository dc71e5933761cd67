// planColumns: which columns a table shows, and how wide, on a terminal of a given width.
// Inside a property, node's assert: the checks expect makes, without what vitest's expect adds to
// every call (its state, copied each time), paid thousands of times a property.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planColumns, type ColumnNeeds } from '../../src/text/table-layout.js';

describe('planColumns', () => {
  const fixed = (width: number, optional = false): ColumnNeeds => ({ full: width, truncate: false, min: width, optional });
  const free = (width: number, min = 8): ColumnNeeds => ({ full: width, truncate: true, min, optional: false });

  it('cuts the widest free-text column first, and gives the rest to the leftmost', () => {
    const plan = planColumns([fixed(10), free(40), free(12), fixed(5)], 60, 2);
    expect(plan.map((p) => p.width)).toEqual([10, 27, 12, 5]);
    expect(plan.reduce((s, p) => s + p.width, 0) + 6).toBe(60);
  });

  it('takes shorter forms before cutting, and leaves optional columns out only when nothing else fits', () => {
    const needs = [fixed(16), free(20), fixed(12), { ...fixed(31, true), compact: 10 }, { ...fixed(31, true), compact: 13 }];
    expect(planColumns(needs, 200, 2).map((p) => [p.shown, p.compact, p.width])).toEqual([
      [true, false, 16], [true, false, 20], [true, false, 12], [true, false, 31], [true, false, 31],
    ]);
    const at80 = planColumns(needs, 80, 2);
    expect(at80.map((p) => p.compact)).toEqual([false, false, false, true, true]);
    expect(at80.map((p) => p.width)).toEqual([16, 20, 12, 10, 13]);
    const at56 = planColumns(needs, 56, 2);
    expect(at56.map((p) => p.shown)).toEqual([true, true, true, true, false]);
    expect(at56.map((p) => p.width)).toEqual([16, 12, 12, 10, 13]);
    const at50 = planColumns(needs, 50, 2);
    expect(at50.map((p) => p.shown)).toEqual([true, true, true, false, false]);
    expect(at50.filter((p) => p.shown).reduce((s, p) => s + p.width + 2, -2)).toBe(50);
  });

  it('property: what can fit does fit; fixed columns keep their width; a cut column keeps its minimum', () => {
    const column = fc.record({
      full: fc.integer({ min: 1, max: 60 }),
      compact: fc.option(fc.integer({ min: 1, max: 60 }), { nil: undefined }),
      truncate: fc.boolean(),
      min: fc.integer({ min: 1, max: 20 }),
      optional: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(column, { minLength: 1, maxLength: 7 }), fc.integer({ min: 10, max: 200 }), (needs, total) => {
        const plan = planColumns(needs, total, 2);
        const shortest = (n: ColumnNeeds): number => Math.min(n.full, n.compact ?? n.full);
        const floor = needs.filter((n) => !n.optional).reduce((s, n) => s + (n.truncate ? Math.min(shortest(n), n.min) : shortest(n)) + 2, -2);
        const used = plan.filter((p) => p.shown).reduce((s, p) => s + p.width + 2, -2);
        if (floor <= total) assert.ok(used <= total, `expected ${used} to be less than or equal to ${total}`);
        plan.forEach((p, i) => {
          const n = needs[i] as ColumnNeeds;
          if (!n.optional) assert.equal(p.shown, true, `column ${i} shown`);
          const natural = p.compact ? (n.compact ?? n.full) : n.full;
          if (!n.truncate) assert.equal(p.width, natural, `column ${i} width`);
          else assert.ok(p.width >= Math.min(natural, n.min), `expected column ${i}'s width ${p.width} to be at least ${Math.min(natural, n.min)}`);
          assert.ok(p.width <= natural, `expected column ${i}'s width ${p.width} to be at most ${natural}`);
        });
      }),
    );
  });
});

// RecentMap: the last n keys, in constant memory.
import { describe, expect, it } from 'vitest';
import { RecentMap } from '../../src/text/recent-set.js';

describe('RecentMap: the last n keys, in constant memory', () => {
  it('forgets the oldest beyond its capacity, and a key set again keeps its place', () => {
    const recent = new RecentMap<string, number>(3);
    for (const [i, key] of ['a', 'b', 'c', 'a', 'd'].entries()) recent.set(key, i);
    expect(recent.size).toBe(3);
    expect(recent.has('a')).toBe(false);
    expect([recent.get('b'), recent.get('c'), recent.get('d')]).toEqual([1, 2, 4]);
    for (let i = 0; i < 10_000; i++) recent.set(`k${i}`, i);
    expect(recent.size).toBe(3);
    expect(recent.has('k9999') && recent.has('k9997') && !recent.has('k9996')).toBe(true);
  });
});

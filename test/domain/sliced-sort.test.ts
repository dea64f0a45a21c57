/** The sliced sort of the window boards' rankings: the same order as Array.sort, bounded work a slice. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { slicedSort } from '../../src/domain/sliced-sort.js';

type Item = { key: number; tag: number };
const byKey = (a: Item, b: Item): number => a.key - b.key;

/** Sorts with a counting comparator; returns the result and the comparisons made between pauses. */
async function sortCounting(items: Item[], limits: { run: number; budget: number }) {
  let since = 0;
  const slices: number[] = [];
  const order = (a: Item, b: Item): number => {
    since++;
    return byKey(a, b);
  };
  const sorted = await slicedSort(
    items,
    order,
    async () => {
      slices.push(since);
      since = 0;
    },
    limits,
  );
  slices.push(since);
  return { sorted, slices };
}

describe('slicedSort', () => {
  it('gives exactly the stable order of Array.prototype.sort, ties in input order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 300 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 500 }),
        async (keys, run, budget) => {
          const items = keys.map((key, tag) => ({ key, tag }));
          const { sorted } = await sortCounting(items, { run, budget });
          expect(sorted).toEqual(items.slice().sort(byKey));
        },
      ),
    );
  });

  it('makes at most `budget` comparisons between two pauses, however long the list', async () => {
    for (const n of [1_000, 10_000, 40_000]) {
      const items = Array.from({ length: n }, (_, tag) => ({ key: (tag * 7919) % 1009, tag }));
      const { sorted, slices } = await sortCounting(items, { run: 16, budget: 64 });
      expect(sorted).toEqual(items.slice().sort(byKey));
      expect(Math.max(...slices)).toBeLessThanOrEqual(64);
      // The work is spread: the number of pauses grows with the list instead of one long turn.
      expect(slices.length).toBeGreaterThan(n / 64);
    }
  });

  it('does not pause for a list that fits one slice', async () => {
    const items = Array.from({ length: 10 }, (_, tag) => ({ key: 10 - tag, tag }));
    const { sorted, slices } = await sortCounting(items, { run: 16, budget: 64 });
    expect(sorted.map((x) => x.key)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(slices).toHaveLength(1);
  });
});

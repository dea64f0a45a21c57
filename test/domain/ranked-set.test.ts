import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { RankedSet, sortInSlices } from '../../src/domain/ranked-set.js';

type Item = { key: number; id: number };
const order = (a: Item, b: Item) => b.key - a.key || a.id - b.id;

describe('RankedSet', () => {
  it('holds the same items in the same order as a sorted array, through adds and deletes across many blocks', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ add: fc.boolean(), key: fc.integer({ min: -20, max: 20 }), id: fc.integer({ min: 0, max: 1500 }) }), { maxLength: 3000 }),
        fc.integer({ min: 0, max: 1200 }),
        (ops, k) => {
          const set = new RankedSet(order);
          const live = new Map<number, Item>();
          for (const op of ops) {
            const old = live.get(op.id);
            if (op.add && old === undefined) {
              const item = { key: op.key, id: op.id };
              live.set(op.id, item);
              set.add(item);
            } else if (!op.add) {
              // deleting an absent item (or one with another key) is refused
              expect(set.delete({ key: op.key, id: op.id })).toBe(old !== undefined && old.key === op.key);
              if (old !== undefined && old.key === op.key) live.delete(op.id);
            }
          }
          const naive = [...live.values()].sort(order);
          expect(set.size).toBe(naive.length);
          expect(set.first(k)).toEqual(naive.slice(0, k));
          expect(set.first(naive.length + 1)).toEqual(naive);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('answers first(k) from an empty set with no items', () => {
    const set = new RankedSet(order);
    expect(set.first(10)).toEqual([]);
    expect(set.delete({ key: 1, id: 1 })).toBe(false);
  });
});

describe('sortInSlices', () => {
  it('sorts like Array.sort, pausing between runs and merges', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ key: fc.integer({ min: -5, max: 5 }), id: fc.integer() }), { maxLength: 400 }),
        fc.integer({ min: 1, max: 50 }),
        async (items, run) => {
          let pauses = 0;
          const sorted = await sortInSlices(items, order, async () => void pauses++, run);
          expect(sorted).toEqual([...items].sort(order));
          expect(pauses).toBeGreaterThanOrEqual(Math.ceil(items.length / run));
          expect(RankedSet.fromSorted(order, sorted).first(items.length)).toEqual(sorted);
        },
      ),
      { numRuns: 60 },
    );
  });
});

/**
 * A stable sort that yields between bounded slices of work, for lists whose length grows with the
 * store (the window boards' rankings: every token traded in a window). Array.prototype.sort of
 * 20,000 board entries holds the event loop for tens of milliseconds on a loaded machine, and
 * longer as the store grows; this sorts runs of `run` items, then merges them pairwise, and calls
 * `pause` whenever the comparisons since the last pause reach `budget` (docs/architecture.md,
 * Caches). The result is exactly `items.slice().sort(order)`: runs are sorted stably and a
 * merge takes the left item on ties.
 */

export type SliceLimits = {
  /** Items sorted in one go before the merges (at most about run * log2(run) comparisons). */
  run: number;
  /** Comparisons allowed between two pauses. */
  budget: number;
};

/** Runs of 1,024 (about 10,000 comparisons), and 16,384 comparisons a slice: a millisecond or two. */
export const SORT_SLICE: SliceLimits = { run: 1024, budget: 16_384 };

export async function slicedSort<T>(
  items: readonly T[],
  order: (a: T, b: T) => number,
  pause: () => Promise<void>,
  limits: SliceLimits = SORT_SLICE,
): Promise<T[]> {
  const { run, budget } = limits;
  let spent = 0;
  const compare = (a: T, b: T): number => {
    spent++;
    return order(a, b);
  };
  const runCost = run * Math.max(1, Math.ceil(Math.log2(run)));

  let src: T[] = [];
  for (let i = 0; i < items.length; i += run) {
    if (spent > 0 && spent + runCost > budget) {
      await pause();
      spent = 0;
    }
    src.push(...items.slice(i, i + run).sort(compare));
  }
  let dst: T[] = new Array<T>(src.length);
  for (let width = run; width < src.length; width *= 2) {
    for (let lo = 0; lo < src.length; lo += 2 * width) {
      const mid = Math.min(lo + width, src.length);
      const hi = Math.min(lo + 2 * width, src.length);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) {
        // Checked before awaiting, so a merge pauses once a budget, not once a comparison.
        if (spent >= budget) {
          await pause();
          spent = 0;
        }
        dst[k++] = compare(src[j]!, src[i]!) < 0 ? src[j++]! : src[i++]!;
      }
      while (i < mid) dst[k++] = src[i++]!;
      while (j < hi) dst[k++] = src[j++]!;
    }
    [src, dst] = [dst, src];
  }
  return src;
}

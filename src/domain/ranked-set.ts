/**
 * An ordered set kept as a list of small sorted blocks (docs/api.md, Token reads: top traders).
 * Adding or removing an item costs a binary search over the blocks and a splice inside one block
 * (O(log n + B)), and the first k items are read in O(k): a ranking of hundreds of thousands of
 * wallets whose figures change a few thousand at a time never sorts them all again.
 *
 * The order must be total (ties broken by a unique key), and an item's key must not change while
 * it is in the set: remove it, change it, add it back.
 */
export type Order<T> = (a: T, b: T) => number;

/** Items per block before it splits; small enough that a splice is a short memmove. */
const BLOCK = 256;

export class RankedSet<T> {
  private blocks: T[][] = [];
  private count = 0;

  constructor(private readonly order: Order<T>) {}

  /** A set of `items`, which must already be in order (each before the next). */
  static fromSorted<T>(order: Order<T>, items: readonly T[]): RankedSet<T> {
    const set = new RankedSet(order);
    for (let i = 0; i < items.length; i += BLOCK >>> 1) set.blocks.push(items.slice(i, i + (BLOCK >>> 1)));
    set.count = items.length;
    return set;
  }

  get size(): number {
    return this.count;
  }

  /** The index of the first block whose last item is not before `item` (blocks.length when none). */
  private blockOf(item: T): number {
    let lo = 0;
    let hi = this.blocks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const b = this.blocks[mid]!;
      if (this.order(b[b.length - 1]!, item) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The index of the first item of `block` that is not before `item`. */
  private indexIn(block: readonly T[], item: T): number {
    let lo = 0;
    let hi = block.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.order(block[mid]!, item) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  add(item: T): void {
    this.count++;
    if (this.blocks.length === 0) {
      this.blocks.push([item]);
      return;
    }
    const bi = Math.min(this.blockOf(item), this.blocks.length - 1);
    const block = this.blocks[bi]!;
    block.splice(this.indexIn(block, item), 0, item);
    if (block.length > BLOCK) this.blocks.splice(bi + 1, 0, block.splice(BLOCK >>> 1));
  }

  /** Removes the item that compares equal to `item`; false when there is none. */
  delete(item: T): boolean {
    const bi = this.blockOf(item);
    const block = this.blocks[bi];
    if (block === undefined) return false;
    const i = this.indexIn(block, item);
    if (i >= block.length || this.order(block[i]!, item) !== 0) return false;
    block.splice(i, 1);
    if (block.length === 0) this.blocks.splice(bi, 1);
    this.count--;
    return true;
  }

  /**
   * Bytes the set holds beyond its items: a slot of 8 bytes an item, a third more for the room
   * blocks keep to grow in place, and a block's own header.
   */
  bytes(): number {
    return Math.ceil(this.count * 8 * (4 / 3)) + this.blocks.length * 48;
  }

  /** The first `k` items, in order. */
  first(k: number): T[] {
    const out: T[] = [];
    for (const block of this.blocks) {
      for (const item of block) {
        if (out.length >= k) return out;
        out.push(item);
      }
    }
    return out;
  }
}

/**
 * Sorts `items` by `order` in steps of at most about `run` comparisons' worth of work between two
 * calls of `pause` (runs of `run` items sorted alone, then merged pairwise, pausing every `run`
 * items merged), so sorting hundreds of thousands of
 * items never holds the event loop for long. Returns a new array.
 */
export async function sortInSlices<T>(items: readonly T[], order: Order<T>, pause: () => Promise<void>, run = 4096): Promise<T[]> {
  let runs: T[][] = [];
  for (let i = 0; i < items.length; i += run) {
    runs.push(items.slice(i, i + run).sort(order));
    await pause();
  }
  while (runs.length > 1) {
    const next: T[][] = [];
    for (let r = 0; r < runs.length; r += 2) {
      const a = runs[r]!;
      const b = runs[r + 1];
      if (b === undefined) {
        next.push(a);
        continue;
      }
      const out = new Array<T>(a.length + b.length);
      let i = 0;
      let j = 0;
      let k = 0;
      while (i < a.length && j < b.length) {
        out[k++] = order(b[j]!, a[i]!) < 0 ? b[j++]! : a[i++]!;
        if (k % run === 0) await pause();
      }
      while (i < a.length) out[k++] = a[i++]!;
      while (j < b.length) out[k++] = b[j++]!;
      next.push(out);
    }
    runs = next;
  }
  return runs[0] ?? [];
}

/**
 * The IP buckets: an open-addressing hash table (linear probing, power-of-two capacity) over typed
 * arrays, so a bucket costs 16 bytes a slot (a 64-bit key as two uint32 halves plus its GCRA TAT
 * as a float64) instead of a Map entry with a string key and an object (hundreds of bytes).
 *
 * There is no delete: buckets whose TAT is in the past are equivalent to a missing (full) bucket,
 * so they are dropped whenever the table is rebuilt: when it would pass its load limit, and on
 * `sweep()`. A rebuild picks the capacity from the live count, so the table also shrinks after a
 * burst of distinct clients goes idle. Keys have a non-zero `lo` half (see ip-key.ts), so
 * `lo === 0` marks an empty slot.
 */

const MIN_CAPACITY = 1 << 10;
/** Rebuild (growing) when an insert would pass this load. */
const MAX_LOAD = 0.5;

export class IpTable {
  private hi: Uint32Array;
  private lo: Uint32Array;
  private tat: Float64Array;
  private mask: number;
  private count = 0;

  /** `seed` perturbs the hash so clients cannot aim their addresses at one probe chain. */
  constructor(private readonly seed: number) {
    const cap = MIN_CAPACITY;
    this.hi = new Uint32Array(cap);
    this.lo = new Uint32Array(cap);
    this.tat = new Float64Array(cap);
    this.mask = cap - 1;
  }

  /** Buckets held, live or not yet reclaimed. */
  get size(): number {
    return this.count;
  }

  get capacity(): number {
    return this.mask + 1;
  }

  /** Bytes held by the typed arrays. */
  get bytes(): number {
    return this.hi.byteLength + this.lo.byteLength + this.tat.byteLength;
  }

  /** The bucket's TAT, or 0 when there is none (a full bucket). */
  get(hi: number, lo: number): number {
    const i = this.find(hi, lo);
    return this.lo[i] === 0 ? 0 : this.tat[i]!;
  }

  /** Stores a TAT; `nowUs` lets a rebuild drop expired buckets when the table must grow. */
  set(hi: number, lo: number, tat: number, nowUs: number): void {
    let i = this.find(hi, lo);
    if (this.lo[i] === 0) {
      if (this.count + 1 > this.capacity * MAX_LOAD) {
        this.rebuild(nowUs, 1);
        i = this.find(hi, lo);
      }
      this.hi[i] = hi;
      this.lo[i] = lo;
      this.count++;
    }
    this.tat[i] = tat;
  }

  /** Drops every bucket whose TAT is at or before `nowUs`; shrinks the table when it can. */
  sweep(nowUs: number): void {
    let live = 0;
    for (let i = 0; i <= this.mask; i++) if (this.lo[i] !== 0 && this.tat[i]! > nowUs) live++;
    // Expired buckets are harmless until then; rebuild only when it frees a real share.
    if (this.count - live < this.count / 4 && capacityFor(live) >= this.capacity) return;
    this.rebuild(nowUs, 0);
  }

  /** The slot holding the key, or the empty slot where it would go. */
  private find(hi: number, lo: number): number {
    let i = hash(hi, lo, this.seed) & this.mask;
    for (;;) {
      const l = this.lo[i]!;
      if (l === 0 || (l === lo && this.hi[i] === hi)) return i;
      i = (i + 1) & this.mask;
    }
  }

  private rebuild(nowUs: number, extra: number): void {
    const { hi, lo, tat } = this;
    let live = 0;
    for (let i = 0; i < lo.length; i++) if (lo[i] !== 0 && tat[i]! > nowUs) live++;
    const cap = capacityFor(live + extra);
    this.hi = new Uint32Array(cap);
    this.lo = new Uint32Array(cap);
    this.tat = new Float64Array(cap);
    this.mask = cap - 1;
    this.count = 0;
    for (let i = 0; i < lo.length; i++) {
      const l = lo[i]!;
      const t = tat[i]!;
      if (l === 0 || t <= nowUs) continue;
      const j = this.find(hi[i]!, l);
      this.hi[j] = hi[i]!;
      this.lo[j] = l;
      this.tat[j] = t;
      this.count++;
    }
  }
}

/**
 * The smallest power-of-two capacity that holds `n` buckets under the load limit, doubled when
 * that would leave less than a quarter of the room free (so rebuilds stay rare).
 */
function capacityFor(n: number): number {
  let cap = MIN_CAPACITY;
  while (n > cap * MAX_LOAD) cap *= 2;
  return n > cap * MAX_LOAD * 0.75 ? cap * 2 : cap;
}

/** A 32-bit mix of the two halves (murmur3's finaliser), seeded. */
function hash(hi: number, lo: number, seed: number): number {
  let h = Math.imul(hi ^ seed, 0x9e3779b1) ^ lo;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

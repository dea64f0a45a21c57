/**
 * The compact memory of a top-traders board (docs/api.md, Top traders: what a request costs):
 * wallet names interned once per token (shared by that token's boards) and every wallet's running
 * figures held column by column in typed arrays, so a board of hundreds of thousands of wallets is
 * a few flat buffers, not one object per wallet: about a third of the memory, and nothing per
 * wallet for the garbage collector to walk. The arithmetic is trader-tally.ts's (compensated sums,
 * a side reset to exactly zero when its last trade leaves).
 */
import { sortInSlices } from './ranked-set.js';
import type { Tally, TraderSort } from './trader-tally.js';

/** Wallet names of one token, each stored once, numbered from 0 in the order first seen. */
export class WalletNames {
  private readonly ids = new Map<string, number>();
  private readonly names: string[] = [];
  private chars = 0;
  private rank: Int32Array = new Int32Array(0);

  /** The number of `name`, given a new one the first time. */
  id(name: string): number {
    let id = this.ids.get(name);
    if (id === undefined) {
      id = this.names.length;
      this.ids.set(name, id);
      this.names.push(name);
      this.chars += name.length;
    }
    return id;
  }

  name(id: number): string {
    return this.names[id]!;
  }

  get size(): number {
    return this.names.length;
  }

  /**
   * Each name's place in name order (by wallet number), sorted in slices that call `pause`; sorted
   * again only when names were added since. Building a ranking then breaks ties by comparing two
   * integers instead of two strings, which is most of a build's sorting (many wallets share a
   * trade count or a round volume), and the token's other boards reuse it.
   */
  async ranks(pause: () => Promise<void>): Promise<Int32Array> {
    const n = this.names.length;
    if (this.rank.length === n) return this.rank;
    const ids = Array.from({ length: n }, (_, i) => i);
    const sorted = await sortInSlices(ids, (a, b) => (this.names[a]! < this.names[b]! ? -1 : 1), pause, 2048);
    const rank = new Int32Array(n);
    for (let r = 0; r < n; r++) rank[sorted[r]!] = r;
    if (n >= this.rank.length) this.rank = rank;
    return rank;
  }

  /**
   * Bytes held, counted from what V8 keeps for each name: the string (16 bytes of header and one
   * byte a character, rounded to 8), its hash-map entry (about 40 bytes at the map's load factor),
   * its slot in the list (8) and its rank (4).
   */
  bytes(): number {
    return this.names.length * (16 + 7 + 40 + 8) + this.chars + this.rank.byteLength;
  }
}

const GROW = 1.5;

function widen64(a: Float64Array, cap: number): Float64Array {
  const n = new Float64Array(cap);
  n.set(a);
  return n;
}

function widen32(a: Int32Array, cap: number): Int32Array {
  const n = new Int32Array(cap);
  n.set(a);
  return n;
}

/**
 * Every wallet's figures in one window, one row (slot) per wallet, column by column. Rows of
 * wallets that left are reused. `slotOf` maps a wallet number of the token's WalletNames to its
 * row (-1 when the wallet is not in the window).
 */
export class TallyTable {
  private cap = 0;
  private rows = 0;
  private free: number[] = [];
  private slotOf: Int32Array = new Int32Array(0);
  wallet: Int32Array = new Int32Array(0);
  b: Float64Array = new Float64Array(0);
  bErr: Float64Array = new Float64Array(0);
  s: Float64Array = new Float64Array(0);
  sErr: Float64Array = new Float64Array(0);
  volume: Float64Array = new Float64Array(0);
  net: Float64Array = new Float64Array(0);
  buys: Int32Array = new Int32Array(0);
  sells: Int32Array = new Int32Array(0);
  /** The three total orders of the rankings over rows (descending, ties by wallet name). */
  readonly orders: Record<TraderSort, (x: number, y: number) => number>;

  constructor(readonly names: WalletNames) {
    const byWallet = (x: number, y: number): number => {
      const a = names.name(this.wallet[x]!);
      const b = names.name(this.wallet[y]!);
      return a < b ? -1 : a > b ? 1 : 0;
    };
    this.orders = {
      volume: (x, y) => this.volume[y]! - this.volume[x]! || byWallet(x, y),
      trades: (x, y) => this.buys[y]! + this.sells[y]! - (this.buys[x]! + this.sells[x]!) || byWallet(x, y),
      net: (x, y) => this.net[y]! - this.net[x]! || byWallet(x, y),
    };
  }

  /**
   * The three orders with ties broken by `rank` (WalletNames.ranks) instead of by name: the same
   * orders for every wallet `rank` covers, for sorting a whole table at once.
   */
  rankedOrders(rank: Int32Array): Record<TraderSort, (x: number, y: number) => number> {
    const w = this.wallet;
    const byRank = (x: number, y: number) => rank[w[x]!]! - rank[w[y]!]!;
    return {
      volume: (x, y) => this.volume[y]! - this.volume[x]! || byRank(x, y),
      trades: (x, y) => this.buys[y]! + this.sells[y]! - (this.buys[x]! + this.sells[x]!) || byRank(x, y),
      net: (x, y) => this.net[y]! - this.net[x]! || byRank(x, y),
    };
  }

  /** Wallets in the table. */
  get size(): number {
    return this.rows - this.free.length;
  }

  /** The row of wallet number `w`, or -1. */
  rowOf(w: number): number {
    return w < this.slotOf.length ? this.slotOf[w]! : -1;
  }

  /** The row of wallet number `w`, made (all zero) when it has none. */
  ensure(w: number): number {
    const r = this.rowOf(w);
    if (r >= 0) return r;
    if (w >= this.slotOf.length) {
      const next = new Int32Array(Math.max(64, Math.ceil((w + 1) * GROW))).fill(-1);
      next.set(this.slotOf);
      this.slotOf = next;
    }
    let row = this.free.pop();
    if (row === undefined) {
      if (this.rows === this.cap) this.grow();
      row = this.rows++;
    }
    this.slotOf[w] = row;
    this.wallet[row] = w;
    this.b[row] = this.bErr[row] = this.s[row] = this.sErr[row] = this.volume[row] = this.net[row] = 0;
    this.buys[row] = this.sells[row] = 0;
    return row;
  }

  /** Frees the row of a wallet whose trades all left the window. */
  release(row: number): void {
    this.slotOf[this.wallet[row]!] = -1;
    this.free.push(row);
  }

  private grow(): void {
    const cap = Math.max(64, Math.ceil(this.cap * GROW));
    this.b = widen64(this.b, cap);
    this.bErr = widen64(this.bErr, cap);
    this.s = widen64(this.s, cap);
    this.sErr = widen64(this.sErr, cap);
    this.volume = widen64(this.volume, cap);
    this.net = widen64(this.net, cap);
    this.wallet = widen32(this.wallet, cap);
    this.buys = widen32(this.buys, cap);
    this.sells = widen32(this.sells, cap);
    this.cap = cap;
  }

  /** Adds one trade to a row (`sign` 1) or takes it out (`sign` -1); as trader-tally applyTrade. */
  apply(row: number, isBuy: boolean, volumeUsd: number, sign: 1 | -1): void {
    const x = sign * volumeUsd;
    if (isBuy) {
      const a = this.b[row]!;
      const sum = a + x;
      this.bErr[row]! += Math.abs(a) >= Math.abs(x) ? a - sum + x : x - sum + a;
      this.b[row] = sum;
      if ((this.buys[row]! += sign) === 0) this.b[row] = this.bErr[row] = 0;
    } else {
      const a = this.s[row]!;
      const sum = a + x;
      this.sErr[row]! += Math.abs(a) >= Math.abs(x) ? a - sum + x : x - sum + a;
      this.s[row] = sum;
      if ((this.sells[row]! += sign) === 0) this.s[row] = this.sErr[row] = 0;
    }
    const bv = this.b[row]! + this.bErr[row]!;
    const sv = this.s[row]! + this.sErr[row]!;
    this.volume[row] = bv + sv;
    this.net[row] = sv - bv;
  }

  /** Trades of a row (0 once every trade of the wallet left). */
  trades(row: number): number {
    return this.buys[row]! + this.sells[row]!;
  }

  /** A row as trader-tally's Tally, for figuresOf. */
  tally(row: number): Tally {
    return {
      wallet: this.names.name(this.wallet[row]!),
      b: this.b[row]!,
      bErr: this.bErr[row]!,
      s: this.s[row]!,
      sErr: this.sErr[row]!,
      buys: this.buys[row]!,
      sells: this.sells[row]!,
      volume: this.volume[row]!,
      net: this.net[row]!,
    };
  }

  /** Bytes of the table's buffers (its rows' capacity, and the wallet-to-row index). */
  bytes(): number {
    return this.cap * (6 * 8 + 3 * 4) + this.slotOf.byteLength + this.free.length * 8;
  }
}

/**
 * One wallet's running figures in a top-traders window (docs/api.md, Token reads), and the three
 * orders of the ranking. Trades are added when they enter the window and subtracted when they
 * leave it, so the volumes are compensated sums (Neumaier): each keeps the rounding error of its
 * additions beside it, and a volume that has seen a million trades come and go stays exact to
 * the last bits instead of drifting. A wallet whose count falls to zero has left the window.
 */
export type TraderSort = 'volume' | 'trades' | 'net';

export type Tally = {
  readonly wallet: string;
  /** Buy and sell volume, each a sum and its carried error. */
  b: number;
  bErr: number;
  s: number;
  sErr: number;
  buys: number;
  sells: number;
  /** The sort keys, kept with the sums so comparing two wallets reads two fields. */
  volume: number;
  net: number;
};

export const newTally = (wallet: string): Tally => ({ wallet, b: 0, bErr: 0, s: 0, sErr: 0, buys: 0, sells: 0, volume: 0, net: 0 });

/** The rounding error of a + b, where t is their floating sum (Neumaier's branch of TwoSum). */
const errOf = (a: number, b: number, t: number): number => (Math.abs(a) >= Math.abs(b) ? a - t + b : b - t + a);

const buyVolume = (t: Tally): number => t.b + t.bErr;
const sellVolume = (t: Tally): number => t.s + t.sErr;

/** Adds one trade to the tally (`sign` 1) or takes it out (`sign` -1). */
export function applyTrade(t: Tally, isBuy: boolean, volumeUsd: number, sign: 1 | -1): void {
  const x = sign * volumeUsd;
  if (isBuy) {
    const sum = t.b + x;
    t.bErr += errOf(t.b, x, sum);
    t.b = sum;
    t.buys += sign;
    if (t.buys === 0) t.b = t.bErr = 0;
  } else {
    const sum = t.s + x;
    t.sErr += errOf(t.s, x, sum);
    t.s = sum;
    t.sells += sign;
    if (t.sells === 0) t.s = t.sErr = 0;
  }
  const b = buyVolume(t);
  const s = sellVolume(t);
  t.volume = b + s;
  t.net = s - b;
}

export type TraderFigures = {
  wallet: string;
  volumeUsd: number;
  buyVolumeUsd: number;
  sellVolumeUsd: number;
  netUsd: number;
  trades: number;
  buys: number;
  sells: number;
};

export function figuresOf(t: Tally): TraderFigures {
  const b = buyVolume(t);
  const s = sellVolume(t);
  return { wallet: t.wallet, volumeUsd: t.volume, buyVolumeUsd: b, sellVolumeUsd: s, netUsd: t.net, trades: t.buys + t.sells, buys: t.buys, sells: t.sells };
}

const byWallet = (a: Tally, b: Tally): number => (a.wallet < b.wallet ? -1 : a.wallet > b.wallet ? 1 : 0);

/** Each sort descending, ties by wallet ascending: total orders, as RankedSet needs. */
export const TRADER_ORDERS: Record<TraderSort, (a: Tally, b: Tally) => number> = {
  volume: (a, b) => b.volume - a.volume || byWallet(a, b),
  trades: (a, b) => b.buys + b.sells - (a.buys + a.sells) || byWallet(a, b),
  net: (a, b) => b.net - a.net || byWallet(a, b),
};

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
};

export const newTally = (wallet: string): Tally => ({ wallet, b: 0, bErr: 0, s: 0, sErr: 0, buys: 0, sells: 0 });

/** Adds x to the compensated sum (sum, err); returns the new pair. */
function addComp(sum: number, err: number, x: number): [number, number] {
  const t = sum + x;
  const e = Math.abs(sum) >= Math.abs(x) ? sum - t + x : x - t + sum;
  return [t, err + e];
}

/** Adds one trade to the tally (`sign` 1) or takes it out (`sign` -1). */
export function applyTrade(t: Tally, isBuy: boolean, volumeUsd: number, sign: 1 | -1): void {
  if (isBuy) {
    [t.b, t.bErr] = addComp(t.b, t.bErr, sign * volumeUsd);
    t.buys += sign;
    if (t.buys === 0) t.b = t.bErr = 0;
  } else {
    [t.s, t.sErr] = addComp(t.s, t.sErr, sign * volumeUsd);
    t.sells += sign;
    if (t.sells === 0) t.s = t.sErr = 0;
  }
}

export const buyVolume = (t: Tally): number => t.b + t.bErr;
export const sellVolume = (t: Tally): number => t.s + t.sErr;

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
  return { wallet: t.wallet, volumeUsd: b + s, buyVolumeUsd: b, sellVolumeUsd: s, netUsd: s - b, trades: t.buys + t.sells, buys: t.buys, sells: t.sells };
}

const byWallet = (a: Tally, b: Tally): number => (a.wallet < b.wallet ? -1 : a.wallet > b.wallet ? 1 : 0);

/** Each sort descending, ties by wallet ascending: total orders, as RankedSet needs. */
export const TRADER_ORDERS: Record<TraderSort, (a: Tally, b: Tally) => number> = {
  volume: (a, b) => buyVolume(b) + sellVolume(b) - (buyVolume(a) + sellVolume(a)) || byWallet(a, b),
  trades: (a, b) => b.buys + b.sells - (a.buys + a.sells) || byWallet(a, b),
  net: (a, b) => sellVolume(b) - buyVolume(b) - (sellVolume(a) - buyVolume(a)) || byWallet(a, b),
};

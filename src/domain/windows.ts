/**
 * Time windows of the read API (docs/api.md, Data and ingest): a window `w` is (now - w, now] on the
 * server's clock, and its base price is the last trade at or before now - w.
 */

export const WINDOW_SECONDS = {
  '5m': 300,
  '1h': 3600,
  '6h': 6 * 3600,
  '24h': 86400,
  '7d': 7 * 86400,
  '30d': 30 * 86400,
} as const;

export type WindowKey = keyof typeof WINDOW_SECONDS;

/** The windows of the overview, in the order they are listed. */
export const OVERVIEW_WINDOWS = ['5m', '1h', '6h', '24h'] as const satisfies readonly WindowKey[];
/** The windows top traders can be asked for. */
export const TRADER_WINDOWS = ['1h', '6h', '24h', '7d', '30d'] as const satisfies readonly WindowKey[];
/** The windows of the discovery lists. */
export const DISCOVERY_WINDOWS = ['1h', '6h', '24h'] as const satisfies readonly WindowKey[];

/**
 * The change from `base` to `price` in percent (12.5 means 12.5 %), not rounded; null when either
 * is unknown or the base is not positive.
 */
export function priceChangePct(price: number | null, base: number | null): number | null {
  if (price === null || base === null || !(base > 0)) return null;
  return ((price - base) / base) * 100;
}

/** Volumes (USD) and counts of a window's trades, split by side. */
export type TradeTotals = { volumeUsd: number; buyVolumeUsd: number; sellVolumeUsd: number; trades: number; buys: number; sells: number };

/** A token's figures over a window (docs/api.md, Token reads: the overview's windows). */
export type WindowFigures = { priceChangePct: number | null } & TradeTotals;

/** A window's figures from its trade statistics, the token's price now and its base price. */
export function windowFigures(s: Omit<WindowFigures, 'priceChangePct'>, priceUsd: number | null, basePriceUsd: number | null): WindowFigures {
  return {
    priceChangePct: priceChangePct(priceUsd, basePriceUsd),
    volumeUsd: s.volumeUsd,
    buyVolumeUsd: s.buyVolumeUsd,
    sellVolumeUsd: s.sellVolumeUsd,
    trades: s.trades,
    buys: s.buys,
    sells: s.sells,
  };
}

/** The figures of a window without trades (or of a token that never traded). */
export const NO_TRADES: WindowFigures = { priceChangePct: null, volumeUsd: 0, buyVolumeUsd: 0, sellVolumeUsd: 0, trades: 0, buys: 0, sells: 0 };

/** `a * b`, or null when either is null. */
export const product = (a: number | null, b: number | null): number | null => (a === null || b === null ? null : a * b);

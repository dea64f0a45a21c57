/**
 * What a chart's bars measure (docs/api.md, Market-cap charts): the price, or the market cap, which
 * is each price of the bar times the token's current circulating supply (volume stays in USD).
 * One supply for every bar: the store keeps the token's supply now, not its history, so a cap
 * chart is the price chart drawn on the cap's scale, as trading terminals show it.
 */
import type { Bar } from './candles.js';

export type ChartMetric = 'price' | 'mcap';

/** The currency code the Charting Library's currency menu shows for market-cap bars. */
export const MCAP_CODE = 'MCAP';

/**
 * The bars of `metric` from the price bars: unchanged for price; for mcap each of o, h, l, c times
 * `supply`, volume as it is. A supply of null (unknown) has no market cap: the caller decides
 * what that answers, so it is refused here.
 */
export function metricBars(bars: readonly Bar[], metric: ChartMetric, supply: number | null): Bar[] {
  if (metric === 'price') return bars as Bar[];
  if (supply === null) throw new Error('metricBars: a market cap needs a circulating supply');
  return bars.map((b) => mcapBar(b, supply));
}

/** One bar in market cap: its prices times the circulating supply, volume in USD as it is. */
export const mcapBar = (b: Bar, supply: number): Bar => ({ t: b.t, o: b.o * supply, h: b.h * supply, l: b.l * supply, c: b.c * supply, v: b.v });

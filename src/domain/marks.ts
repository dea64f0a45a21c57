/**
 * A wallet's trades as TradingView marks (docs/api.md, A wallet's trades on the chart): the UDF
 * `/marks` answer in columns (the form the stock adapter reads), one mark per trade, B on green for
 * a buy and S on red for a sell, its text the side, amount, price and time.
 */
/** The most marks one answer holds (the newest kept). */
export const MAX_MARKS = 1000;

export const BUY_COLOR = '#26a69a';
export const SELL_COLOR = '#ef5350';
const LABEL_COLOR = '#ffffff';
/** Pixels: a mark's letter stays readable at every zoom. */
const MIN_SIZE = 14;

/** What a mark needs of a trade. */
export type MarkTrade = { id: number; blockTime: number; side: 'buy' | 'sell'; priceUsd: number; amount: number; volumeUsd: number };

export type MarkColumns = {
  id: number[];
  time: number[];
  color: string[];
  text: string[];
  label: ('B' | 'S')[];
  labelFontColor: string[];
  minSize: number[];
};

/** The answer without marks (no wallet asked for): every column empty. */
export const noMarks = (): MarkColumns => ({ id: [], time: [], color: [], text: [], label: [], labelFontColor: [], minSize: [] });

/** `2026-11-27 13:05:09 UTC`: the trade's time as the mark's text shows it. */
export const markTime = (seconds: number): string => `${new Date(seconds * 1000).toISOString().slice(0, 19).replace('T', ' ')} UTC`;

/** Made once: toLocaleString builds a formatter per call, about half a millisecond each. */
const GROUPED = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

/**
 * A number as the mark's text shows it, never in exponent form: from 1 on with thousands
 * separators and at most two decimals (1,234.5), below 1 with four significant digits (0.00002131).
 */
export function formatAmount(x: number): string {
  if (!Number.isFinite(x) || x === 0) return String(x);
  const abs = Math.abs(x);
  if (abs >= 1) return GROUPED.format(x);
  const decimals = Math.min(100, 3 - Math.floor(Math.log10(abs)));
  return x.toFixed(decimals).replace(/0+$/, '');
}

/** A USD amount or price: `$` and formatAmount. */
export const formatUsd = (x: number): string => (x < 0 ? `-$${formatAmount(-x)}` : `$${formatAmount(x)}`);

/** The text of one mark: "Buy 1,234.5 BONK at $0.0000213 ($26.30) on 2026-11-27 13:05:09 UTC". */
export function markText(tr: MarkTrade, symbol: string): string {
  const side = tr.side === 'buy' ? 'Buy' : 'Sell';
  return `${side} ${formatAmount(tr.amount)} ${symbol} at ${formatUsd(tr.priceUsd)} (${formatUsd(tr.volumeUsd)}) on ${markTime(tr.blockTime)}`;
}

/** Marks of `trades` (ascending by time, as the chart wants them), in columns. */
export function walletMarks(trades: readonly MarkTrade[], symbol: string): MarkColumns {
  const out = noMarks();
  for (const tr of trades) {
    out.id.push(tr.id);
    out.time.push(tr.blockTime);
    out.color.push(tr.side === 'buy' ? BUY_COLOR : SELL_COLOR);
    out.text.push(markText(tr, symbol));
    out.label.push(tr.side === 'buy' ? 'B' : 'S');
    out.labelFontColor.push(LABEL_COLOR);
    out.minSize.push(MIN_SIZE);
  }
  return out;
}

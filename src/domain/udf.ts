/**
 * The shapes of the TradingView UDF datafeed (docs/api.md, TradingView UDF datafeed), as pure functions: the
 * configuration, symbol info, search items and quote values, the price scale rule, and how a
 * search query names an exchange.
 */
import { SUPPORTED_RESOLUTIONS } from './resolution.js';
import { MCAP_CODE, type ChartMetric } from './chart-metric.js';

export const SECONDS_MULTIPLIERS = ['1', '5', '15', '30'] as const;
export const INTRADAY_MULTIPLIERS = ['1', '5', '15', '30', '60', '240'] as const;
/** Volumes are USD amounts: cents are the finest step worth showing. */
export const VOLUME_PRECISION = 2;
/** The largest price scale exponent: 10^308 is the largest power of ten a double holds. */
const MAX_SCALE_EXPONENT = 308;

/** The one symbol type the datafeed lists. */
export const SYMBOL_TYPE = 'crypto';

/** The power of ten at or below a positive number (floor(log10 x)), exact at the boundaries. */
export function decimalExponent(x: number): number {
  let e = Math.floor(Math.log10(x));
  // log10 rounds; nudge so that 10^e <= x < 10^(e+1) holds exactly.
  if (Number(`1e${e}`) > x) e--;
  else if (Number(`1e${e + 1}`) <= x) e++;
  return e;
}

/**
 * A token without a price: its first price is unknown, and the Charting Library keeps the scale
 * it resolved with until reload, so 100 would show a first trade at $0.00123 as 0.00.
 */
export const UNPRICED_SCALE = 1e10;

/**
 * 10^max(2, 3 - floor(log10 price)): four significant digits, at least cents. A token without a
 * price gets UNPRICED_SCALE. Only a price below 1e-305 would need more than a double holds
 * (capped there).
 */
export function pricescale(price: number | null): number {
  if (price === null || !(price > 0) || !Number.isFinite(price)) return UNPRICED_SCALE;
  const exponent = Math.min(MAX_SCALE_EXPONENT, Math.max(2, 3 - decimalExponent(price)));
  return Number(`1e${exponent}`);
}

/** What the symbol shapes need to know about a token. */
export type UdfToken = {
  address: string;
  symbol: string;
  name: string;
  priceUsd: number | null;
  /** The dex of the token's most liquid market; the chain name without markets (never ''). */
  topDex: string;
};

export type UdfExchange = { value: string; name: string; desc: string };

/** GET /udf/config. */
export function udfConfig(dexes: readonly string[]) {
  return {
    supports_search: true,
    supports_group_request: false,
    // A wallet's trades (GET /udf/marks?wallet=); without a wallet the answer is empty.
    supports_marks: true,
    supports_timescale_marks: false,
    supports_time: true,
    exchanges: [{ value: '', name: 'All Exchanges', desc: '' }, ...dexes.map((d): UdfExchange => ({ value: d, name: d, desc: d }))],
    symbols_types: [{ name: 'Crypto', value: SYMBOL_TYPE }],
    supported_resolutions: [...SUPPORTED_RESOLUTIONS],
  };
}

/**
 * Symbol info for GET /udf/symbols; never an `s` field (the adapter takes any `s` for an error).
 * `exchange` is the exchange the caller named, else the token's most liquid dex.
 */
export function symbolInfo(token: UdfToken, exchange: string) {
  return {
    name: token.symbol,
    ticker: token.address,
    description: token.name,
    type: SYMBOL_TYPE,
    session: '24x7',
    timezone: 'Etc/UTC',
    exchange,
    listed_exchange: token.topDex,
    format: 'price',
    pricescale: pricescale(token.priceUsd),
    minmov: 1,
    has_intraday: true,
    has_seconds: true,
    seconds_multipliers: [...SECONDS_MULTIPLIERS],
    intraday_multipliers: [...INTRADAY_MULTIPLIERS],
    has_daily: true,
    has_weekly_and_monthly: true,
    supported_resolutions: [...SUPPORTED_RESOLUTIONS],
    volume_precision: VOLUME_PRECISION,
    visible_plots_set: 'ohlcv',
    data_status: 'streaming',
    currency_code: 'USD',
  };
}

/**
 * Symbol info of a token symbol, in USD or in market cap (docs/api.md, Market-cap charts): a token
 * with a circulating supply lists `["USD", "MCAP"]` in currency_codes (the chart's currency menu);
 * one without has no market cap, so its menu offers none. In MCAP the price scale is the cap's
 * (four significant digits of dollars of cap) and currency_code is MCAP.
 */
export function tokenSymbolInfo(token: UdfToken & { circulatingSupply: number | null }, exchange: string, metric: ChartMetric) {
  const supply = token.circulatingSupply;
  const shown = metric === 'price' ? token.priceUsd : token.priceUsd === null || supply === null ? null : token.priceUsd * supply;
  const base = { ...symbolInfo({ ...token, priceUsd: shown }, exchange), currency_code: metric === 'price' ? 'USD' : MCAP_CODE };
  return supply === null ? base : { ...base, currency_codes: ['USD', MCAP_CODE] };
}

/**
 * Symbol info of a pair (README, Pairs and native prices): a market as a symbol, named
 * SYMBOL/QUOTE, on its dex, in USD or in its quote token (`currency`), both listed in
 * currency_codes so the chart offers the switch. `lastPrice` is in that currency.
 */
export function pairSymbolInfo(
  token: UdfToken & { name: string },
  market: { address: string; dex: string; quoteSymbol: string },
  currency: 'usd' | 'native',
  lastPrice: number | null,
) {
  const base = symbolInfo({ ...token, priceUsd: lastPrice }, market.dex);
  return {
    ...base,
    name: `${token.symbol}/${market.quoteSymbol}`,
    ticker: market.address,
    description: `${token.name} / ${market.quoteSymbol} on ${market.dex}`,
    listed_exchange: market.dex,
    currency_code: currency === 'usd' ? 'USD' : market.quoteSymbol,
    currency_codes: ['USD', market.quoteSymbol],
  };
}

/** `EXCHANGE:SYMBOL`; the exchange is never empty (the chain name for a token without markets). */
export const fullName = (exchange: string, symbol: string): string => `${exchange}:${symbol}`;

/**
 * A search query as the search dialog sends it: `ORCA:GIGA` (what a user types, upper-cased)
 * searches GIGA on that exchange, as /udf/symbols reads the same text; an `exchange` parameter,
 * when also given, must name the same exchange (else null: nothing matches).
 */
export function splitSearchQuery(query: string, exchange: string | null): { text: string; exchange: string | null } | null {
  const colon = query.indexOf(':');
  if (colon < 0) return { text: query, exchange };
  const named = query.slice(0, colon).trim();
  const text = query.slice(colon + 1).trim();
  if (named === '') return { text, exchange };
  if (exchange !== null && exchange.toLowerCase() !== named.toLowerCase()) return null;
  return { text, exchange: named };
}

/** Characters between the words of a name: what SQLite's unicode61 tokenizer separates on. */
const WORD_SEPARATORS = /[^\p{L}\p{N}\p{Co}]+/u;
/** A query searched in names: letters, digits and blanks only, so `%`, `_` and `:` stay literal. */
const NAME_QUERY = /^[\p{L}\p{N}\s]+$/u;

/** The lower-cased words of a name. */
export const nameWords = (name: string): string[] =>
  name
    .toLowerCase()
    .split(WORD_SEPARATORS)
    .filter((w) => w !== '');

/** The words a search query looks for in names, or null when names are not searched for it. */
export const queryWords = (query: string): string[] | null => {
  if (!NAME_QUERY.test(query)) return null;
  const words = nameWords(query);
  return words.length === 0 ? null : words;
};

/**
 * True when `words` occur in a row in the name, the last one as a word prefix ("super b" finds
 * "Super Bonk", "bonk" finds "Bonk AI" and "Super Bonk").
 */
export function nameHasPhrase(name: string, words: readonly string[]): boolean {
  const have = nameWords(name);
  const last = words.length - 1;
  for (let i = 0; i + last < have.length; i++) {
    let j = 0;
    while (j < last && have[i + j] === words[j]) j++;
    if (j === last && have[i + last]!.startsWith(words[last]!)) return true;
  }
  return false;
}

/** One item of GET /udf/search. */
export function searchItem(token: UdfToken, exchange: string) {
  return {
    symbol: token.symbol,
    full_name: fullName(exchange, token.symbol),
    description: token.name,
    exchange,
    ticker: token.address,
    type: SYMBOL_TYPE,
  };
}

/** The rolling 24 h figures a quote is made of. */
export type QuoteFigures = {
  last: number | null;
  /** The last trade at or before now - 24 h. */
  base: number | null;
  volume: number;
  open: number | null;
  high: number | null;
  low: number | null;
};

/**
 * The `v` of one GET /udf/quotes item. Change is measured against the base price (the last trade
 * at or before now - 24 h), which is also `prev_close_price`; without a base, change is null.
 */
export function quoteValues(token: UdfToken, exchange: string, f: QuoteFigures) {
  const ch = f.last !== null && f.base !== null ? f.last - f.base : null;
  const chp = ch !== null && f.base !== null && f.base !== 0 ? (ch / f.base) * 100 : null;
  return {
    lp: f.last,
    ch,
    chp,
    volume: f.volume,
    open_price: f.open,
    high_price: f.high,
    low_price: f.low,
    prev_close_price: f.base,
    short_name: token.symbol,
    exchange,
    description: token.name,
  };
}

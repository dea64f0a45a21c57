/** Dependencies, query parameters and errors shared by the UDF routes. */
import type { z } from 'zod';
import { errors } from '../../errors.js';
import { textParam } from '../validate.js';
import type { CandlesRepo, Currency, MarketCandlesRepo, Resolved, ResolvedPair, SymbolsRepo, TradesRepo, WindowRepo } from '../../store/port/repos.js';
import type { ResponseCache } from '../../read/response-cache.js';
import type { HistoryCache } from '../../read/history-cache.js';
import type { Clock } from '../../domain/clock.js';
import type { Async } from '../../store/port/async.js';
import type { KnownName } from '../../read/resolve-cache.js';
import { MCAP_CODE, type ChartMetric } from '../../domain/chart-metric.js';
import type { Chains } from '../../domain/chains.js';

/** What the UDF routes are built from: the repos of the storage boundary (src/store/port/repos.ts). */
export type UdfDeps = {
  clock: Clock;
  /** The deployment's chains (docs/chains.md): tickers are store keys, descriptions name the chain when several. */
  chains: Chains;
  symbols: Async<SymbolsRepo>;
  /** A name `symbols` resolved and keeps in memory, answered without a promise (undefined when not kept). */
  known: KnownName;
  candles: Async<CandlesRepo>;
  trades: Async<TradesRepo>;
  marketCandles: Async<MarketCandlesRepo>;
  windows: Async<WindowRepo>;
  cache: ResponseCache;
  /** Bars of chart series kept between requests (src/read/history-cache.ts). */
  history: HistoryCache;
};

/** The longest symbol name looked up (an address is at most 44 characters; a symbol 32). */
export const MAX_NAME = 200;

/** A symbol name: an address, a symbol or EXCHANGE:SYMBOL. */
export const symbolParam = () => textParam(1, MAX_NAME);

/**
 * Parameters the adapter adds to /symbols and /history. `currencyCode` is USD, MCAP for a token
 * symbol (its market-cap bars), or for a pair symbol its quote symbol (README, Pairs and native
 * prices); `unitId` is accepted and ignored.
 */
export const adapterParams = {
  currencyCode: textParam(1, 32)
    .prefault('USD')
    .describe(
      'USD (default); MCAP for a token symbol (price bars times its circulating supply); for a pair symbol its quote symbol (one of its currency_codes)',
    ),
  unitId: textParam(1, 64).optional(),
} satisfies Record<string, z.ZodType>;

/** What a chart names: a token (in USD, or its market cap), or a market as a pair in USD or in its quote token. */
export type Chart = { kind: 'token'; resolved: Resolved; metric: ChartMetric } | { kind: 'pair'; pair: ResolvedPair; currency: Currency };

/** The metric a token symbol's currencyCode asks for (USD; MCAP in any case), or null for any other code. */
export const tokenMetric = (code: string): ChartMetric | null => (code === 'USD' ? 'price' : code.toUpperCase() === MCAP_CODE ? 'mcap' : null);

const TOKEN_CODES = `currencyCode must be one of USD, ${MCAP_CODE}`;

/**
 * Resolves a symbol and the adapter's currencyCode: a token first (its names work as they always
 * did), else a market address; 404 token_not_found ("unknown symbol") when neither. A token is
 * in USD or MCAP (its market cap); a pair in USD or its quote symbol (case-insensitive), else 400
 * on currencyCode.
 */
export async function resolveChart(symbols: Async<SymbolsRepo>, name: string, code: string): Promise<Chart> {
  const metric = tokenMetric(code);
  const resolved = await symbols.resolve(name);
  if (resolved !== null) {
    if (metric === null) throw errors.invalidParameter('currencyCode', TOKEN_CODES);
    return { kind: 'token', resolved, metric };
  }
  const pair = await symbols.pair(name);
  // Only a pair has a quote currency: for an unknown name the code is the first error, as for a token.
  if (pair === null && metric === null) throw errors.invalidParameter('currencyCode', TOKEN_CODES);
  if (pair === null) throw errors.unknownSymbol();
  if (code.toUpperCase() === 'USD') return { kind: 'pair', pair, currency: 'usd' };
  if (code.toLowerCase() === pair.market.quoteSymbol.toLowerCase()) return { kind: 'pair', pair, currency: 'native' };
  throw errors.invalidParameter('currencyCode', `currencyCode must be one of USD, ${pair.market.quoteSymbol}`);
}

/** The token a chart names, or 404 token_not_found ("unknown symbol" in the UDF form). */
export async function resolveOr404(symbols: Async<SymbolsRepo>, name: string): Promise<Resolved> {
  const found = await symbols.resolve(name);
  if (found === null) throw errors.unknownSymbol();
  return found;
}

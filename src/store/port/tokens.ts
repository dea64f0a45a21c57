/**
 * The port's tokens area (docs/architecture.md, The store port): token rows, discovery's reads and
 * its change log, the search index of /v1/search and the UDF datafeed's symbol lookup, as every
 * engine answers them. Repos are written in their synchronous shape; callers see them as
 * `Async<R>` (src/store/port/repos.ts).
 */
import type { TokenSummaryLike } from '../../domain/discovery.js';
import type { UdfToken } from '../../domain/udf.js';

export type TokenRow = {
  id: number;
  address: string;
  symbol: string;
  name: string;
  decimals: number;
  totalSupply: number | null;
  circulatingSupply: number | null;
  createdAt: number;
  logoUri: string | null;
  updatedAt: number;
  lastTradeAt: number | null;
  priceUsd: number | null;
};

export type TokensRepo = {
  /** The token with this (already normalised) address, or undefined. */
  byAddress: (address: string) => TokenRow | undefined;
  byId: (id: number) => TokenRow | undefined;
};

export type TokenSummary = TokenSummaryLike & { id: number; lastTradeAt: number | null };

/** Search match kinds, best first. */
export const MATCH_KINDS = ['address', 'symbol', 'symbolPrefix', 'name'] as const;
export type MatchKind = (typeof MATCH_KINDS)[number];

/**
 * The keys of one chain (docs/chains.md, How chains are stored): a range `[from, to)` of the key
 * order for a chain other than the default (chainKeyRange), or `'plain'` for the default chain's
 * keys, which hold no colon.
 */
export type ChainKeys = { from: string; to: string } | 'plain';

/** What GET /v1/chains shows of one chain: its tokens, markets and trades, and its newest trade's time. */
export type ChainCounts = { tokens: number; markets: number; trades: number; lastTradeAt: number | null };

export type DiscoveryRepo = {
  /** Ids of the tokens whose last trade is at or after `since` (index tokens_last_trade). */
  tradedSince: (since: number) => number[];
  /** Ids of the tokens with a trade at from <= blockTime < to. */
  tradedBetween(from: number, to: number): number[];
  summary: (id: number) => TokenSummary | undefined;
  /** The `limit` newest tokens by createdAt, ties by address; of one chain's keys when `keys` is given. */
  newest: (limit: number, keys?: ChainKeys) => TokenSummary[];
  /** The counts of one chain's keys (GET /v1/chains). */
  chainCounts: (keys: ChainKeys) => ChainCounts;
};

/** The token change log (docs/api.md, Discovery): which tokens changed since an entry. */
export type TokenChangesRepo = {
  /** The oldest and newest entry (0, 0 when the log is empty). */
  bounds: () => { first: number; last: number };
  /** The newest entry (0 when the log is empty). */
  last: () => number;
  /** The tokens of the entries after `after`, up to and including `upTo`. */
  since: (after: number, upTo: number) => number[];
};

/** A token as the search index holds it: symbol and name folded with foldCase. */
export type IndexedToken = { id: number; address: string; sym: string; name: string };

export { foldCase } from '../../domain/search-text.js';

export type SearchIndexRepo = {
  /** Rows returned by this repo's reads so far (the measure of a search's cost). */
  rowsRead: () => number;
  byAddress(address: string): IndexedToken | undefined;
  /** Up to `n` tokens whose folded symbol is `sym`, with addresses after `after`, by address. */
  bySymbol: (sym: string, after: string, n: number) => IndexedToken[];
  /** Up to `n` tokens whose folded symbol starts with `prefix`, after (sym, address) = `from`, by (sym, address). */
  bySymbolPrefix: (prefix: string, from: { sym: string; address: string }, n: number) => IndexedToken[];
  /** Up to `n` tokens with addresses after `after`, by address. */
  inAddressOrder: (after: string, n: number) => IndexedToken[];
  /**
   * Up to `n` tokens whose folded name contains `text` (three or more characters: the trigram
   * index cannot answer shorter ones), with ids after `after`, by id.
   */
  byName: (text: string, after: number, n: number) => IndexedToken[];
  /** Up to `n` tokens whose folded name contains `gram` (one or two characters), with ids after `after`, by id. */
  byShortName: (gram: string, after: number, n: number) => IndexedToken[];
};

/** `circulatingSupply`: what a market-cap chart multiplies its prices by (null: unknown, no cap). */
export type SymbolRow = UdfToken & { id: number; liquidityUsd: number; lastTradeAt: number | null; circulatingSupply: number | null };

/** A resolved name: the token and the exchange to show for it (never empty). */
export type Resolved = { token: SymbolRow; exchange: string };

/** A market named as a pair symbol (README, Pairs and native prices), with its token. */
export type ResolvedPair = { token: SymbolRow; market: { address: string; dex: string; quoteSymbol: string } };

export type SearchQuery = {
  /** Symbol prefix, name word prefix, address (exact, or prefix of 4+ characters); case-insensitive. */
  query: string;
  /** A dex name (case-insensitive), or null for all. */
  exchange: string | null;
  limit: number;
  /** One chain of the deployment's (docs/chains.md), or null / absent for every chain. */
  chain?: string | null;
};

/** The UDF datafeed's symbol lookup (docs/api.md, TradingView UDF datafeed). */
export type SymbolsRepo = {
  /**
   * Resolves what a chart calls a symbol: an address or `chain:address`, a symbol, or
   * `CHAIN:NAME` (that chain's tokens) / `EXCHANGE:SYMBOL` / `EXCHANGE:ADDRESS` (an empty exchange
   * means all; docs/chains.md). Leading and trailing blanks are ignored. A name that is not found
   * as `X:...` is still tried whole.
   */
  resolve(name: string): Resolved | null;
  /**
   * A market named by its address, or `EXCHANGE:ADDRESS` (the exchange, when not empty or the
   * chain name, must be the market's dex, case-insensitively); null when it names no market.
   */
  pair(name: string): ResolvedPair | null;
  /**
   * Tokens matching the query, best first: exact address or symbol, then symbol prefixes, then
   * name word prefixes and address prefixes; each class by liquidity, then address.
   */
  search(q: SearchQuery): Resolved[];
  /** Every dex that has a market, one spelling each, sorted case-insensitively. */
  exchanges: () => string[];
};

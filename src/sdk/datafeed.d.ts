/**
 * Types of /sdk/datafeed.js: createDatafeed returns the TradingView Charting Library's Datafeed
 * API (IBasicDataFeed & IDatafeedQuotesApi) on this service. Structural types, so the module is
 * usable without the Charting Library's own typings; they match its shapes.
 */

export type DatafeedOptions = {
  /** The service's origin, e.g. https://api.example.com (no /udf). */
  baseUrl: string;
  /** An API key with the read scope; sent as x-api-key, and as ?key= on the stream. */
  apiKey?: string;
  /** A wallet address: its trades of the charted token are marked on the chart (getMarks, /udf/marks). */
  wallet?: string;
  /**
   * A WebSocket class with the browser's interface (onopen, onmessage, onclose, send, close), for
   * runtimes without a global one (Node 20: the `ws` package's default export).
   */
  WebSocket?: new (url: string) => unknown;
};

/** A bar as the library takes it: time in milliseconds. */
export type Bar = { time: number; open: number; high: number; low: number; close: number; volume?: number };

export type PeriodParams = { from: number; to: number; countBack: number; firstDataRequest: boolean };
export type HistoryMetadata = { noData?: boolean; nextTime?: number | null };

/** The /udf/symbols answer (LibrarySymbolInfo). */
export type SymbolInfo = {
  name: string;
  /** The token's (or market's) address; `chain:address` off the deployment's default chain. */
  ticker?: string;
  description: string;
  type: string;
  session: string;
  timezone: string;
  exchange: string;
  listed_exchange: string;
  format: string;
  pricescale: number;
  minmov: number;
  [field: string]: unknown;
};

/** A mark as the library takes it (time in seconds): one trade of the wallet, B or S. */
export type Mark = { id: number; time: number; color: string; text: string; label: string; labelFontColor: string; minSize: number };

/** A /udf/search item; `ticker` is `chain:address` off the default chain, and `chain` is there when the deployment serves several. */
export type SearchResultItem = { symbol: string; full_name: string; description: string; exchange: string; ticker?: string; type: string; chain?: string };
/** An item as /udf/quotes gives it. */
export type QuoteItem = { s: 'ok' | 'error'; n: string; v: Record<string, unknown> };

export type Datafeed = {
  onReady(callback: (configuration: Record<string, unknown>) => void): void;
  searchSymbols(userInput: string, exchange: string, symbolType: string, onResult: (items: SearchResultItem[]) => void): void;
  /** `extension.currencyCode`: the currency picked in the chart's menu (USD, MCAP, a pair's quote symbol). */
  resolveSymbol(
    symbolName: string,
    onResolve: (info: SymbolInfo) => void,
    onError: (reason: string) => void,
    extension?: { currencyCode?: string; unitId?: string },
  ): void;
  getBars(
    symbolInfo: SymbolInfo,
    resolution: string,
    periodParams: PeriodParams,
    onResult: (bars: Bar[], meta: HistoryMetadata) => void,
    onError: (reason: string) => void,
  ): void;
  /**
   * One independent stream subscription per listenerGuid; a `reset` (reason backfill, supply or
   * reorg: trades taken out by a chain reorganisation) calls onResetCacheNeededCallback.
   */
  subscribeBars(symbolInfo: SymbolInfo, resolution: string, onTick: (bar: Bar) => void, listenerGuid: string, onResetCacheNeededCallback: () => void): void;
  unsubscribeBars(listenerGuid: string): void;
  /** The wallet's trades in [from, to) (seconds), at most 1000, the newest; none without a wallet. */
  getMarks(symbolInfo: SymbolInfo, from: number, to: number, onDataCallback: (marks: Mark[]) => void, resolution: string): void;
  getServerTime(callback: (unixSeconds: number) => void): void;
  getQuotes(symbols: string[], onDataCallback: (items: QuoteItem[]) => void, onErrorCallback: (reason: string) => void): void;
  /** Items as /udf/quotes gives them, at most once per second per symbol. */
  subscribeQuotes(symbols: string[], fastSymbols: string[], onRealtimeCallback: (items: QuoteItem[]) => void, listenerGuid: string): void;
  unsubscribeQuotes(listenerGuid: string): void;
};

export function createDatafeed(options: DatafeedOptions): Datafeed;

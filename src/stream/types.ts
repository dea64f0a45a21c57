/**
 * What the live hub is built from: the reads it needs (answered by the same code that serves
 * /udf/history, /v1/prices and the overview route, so the stream never says something else) and
 * the socket it writes to. Keeping both as plain interfaces keeps src/stream free of Koa and ws.
 */
import type { Bar } from '../domain/candles.js';
import type { Resolution } from '../domain/resolution.js';
import type { TradeJson } from '../store/port/repos.js';
import type { RemovalLogEntry, RemovalLogReads } from '../store/port/retract.js';

export type TokenRef = { id: number; address: string };

export type PriceState = { priceUsd: number | null; priceChangePct24h: number | null; lastTradeAt: number | null };

/**
 * The hub's reads of the store, each a promise (either engine: src/read/stream-source.ts). The
 * hub makes the reads a change or a new subscription needs before it touches the fan-out, and
 * hands the fan-out those answers as a `StreamSource` (src/stream/change-reads.ts), so a change
 * is fanned out in one synchronous step, in the order changes came.
 */
export type StreamReads = RemovalLogReads & {
  /** The token a name designates, as /udf/symbols reads it; null when none. */
  resolve(name: string): Promise<TokenRef | null>;
  maxTradeId(): Promise<number>;
  tradesAfter(tokenId: number, afterId: number, upTo: number, limit: number): Promise<TradeJson[]>;
  commitEnds(from: number, to: number): Promise<number[]>;
  barsFrom(tokenId: number, res: Resolution, from: number): Promise<Bar[]>;
  barAt(tokenId: number, res: Resolution, t: number): Promise<Bar | null>;
  newestBar(tokenId: number, res: Resolution): Promise<Bar | null>;
  /** The token's circulating supply (null: unknown), what market-cap bars are scaled by. */
  supply(tokenId: number): Promise<number | null>;
  price(tokenId: number): Promise<PriceState | null>;
  overview(tokenId: number): Promise<unknown>;
  settled(): Promise<void> | null;
  checkExternalChanges(): void;
  onChange(listener: (tokens: ReadonlySet<number> | 'all', accounts: boolean) => void): () => void;
  keyValid(keyId: string): Promise<boolean>;
  /**
   * How a message names a token of this store key (docs/chains.md, Answers): `{address}`, with
   * `chain` when the deployment serves several. Absent: the key itself, as on one chain.
   */
  fields?(key: string): TokenFields;
};

/** A token as a stream message names it: its plain address, and its chain when there are several. */
export type TokenFields = { address: string; chain?: string };

/**
 * What the fan-out reads, synchronously: the answers the hub read for the change being fanned
 * out (src/stream/change-reads.ts), with the meaning of the same methods of `StreamReads`.
 */
export type StreamSource = {
  /** The highest trade id in the store: every trade at or below it is committed. */
  maxTradeId(): number;
  /**
   * The bars read may hold the trades up to this id (at least maxTradeId(); more only when commits
   * kept landing while they were read): those are never taken for a backfill later.
   */
  barsThrough(): number;
  /** Trades of the token with afterId < id <= upTo, ascending by id, at most `limit`. */
  tradesAfter(tokenId: number, afterId: number, upTo: number, limit: number): TradeJson[];
  /** The ends (highest trade id) of the ingest transactions that end in [from, to): trades split after each. */
  commitEnds(from: number, to: number): number[];
  /** The bar of the token that starts at `t`, or null when it has none. */
  barAt(tokenId: number, res: Resolution, t: number): Bar | null;
  /** The newest bar of the token at this resolution, or null. */
  newestBar(tokenId: number, res: Resolution): Bar | null;
  /** The token's circulating supply, read with its bars when it has market-cap subscriptions. */
  supply(tokenId: number): number | null;
  price(tokenId: number): PriceState | null;
  /** The body of GET /v1/token/:address/overview, or null when the token is gone. */
  overview(tokenId: number): unknown;
  /**
   * The trades of the token that retractions took out of the store since the last change (the
   * removal log, src/store/port/retract.ts), in removal order; empty when none.
   */
  removed(tokenId: number): readonly RemovalLogEntry[];
  /** While a write transaction of this process is open across turns, a promise of its end; else null. */
  settled(): Promise<void> | null;
  /** How a message names the token of a store key (StreamReads.fields). */
  fields(key: string): TokenFields;
};

/**
 * Makes one complete WebSocket text frame of a UTF-8 payload. Injected (src/http/stream-socket.ts)
 * so a message shared by many subscribers is framed once, not once per socket.
 */
export type Framer = (payload: Buffer) => Buffer;

/** The part of a WebSocket the hub uses. */
export type StreamSocket = {
  /** Writes complete frames made by the Framer (dropped once the socket is closing). */
  write(frames: Buffer): void;
  /** Calls `done` once the socket has taken whole everything written so far (or is closing). */
  drained(done: () => void): void;
  readonly bufferedAmount: number;
  /** Stops reading the client's messages (TCP backpressure), until resume. */
  pause(): void;
  resume(): void;
  close(code: number, reason: string): void;
  terminate(): void;
  ping(): void;
};

/** What the upgrade decided about the caller. */
export type ConnectionInfo = {
  /** The rate-limit bucket of the caller; also the bucket its connections are capped in. */
  bucket: string;
  /** The key the connection was opened with (checked for revocation), or null when anonymous. */
  keyId: string | null;
  /** Counts one request in the caller's bucket: null when allowed, else seconds to wait (a promise with a shared limiter). */
  charge(): number | null | Promise<number | null>;
};

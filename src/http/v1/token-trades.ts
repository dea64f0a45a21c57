/**
 * GET /v1/token/:address/trades and /candles (docs/api.md, Token reads). Trades page by keyset on
 * (blockTime, id), newest first, with signed cursors that carry the walk's snapshot bound;
 * candles are the bars of /udf/history (candles-repo readBars, same rules), as objects, in price or
 * market cap (metric=mcap), with the empty buckets filled on request (fill=previous).
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { ApiRouter } from '../route.js';
import type { Clock } from '../../domain/clock.js';
import type { Services } from '../../services/index.js';
import type { ResponseCache } from '../../read/response-cache.js';
import type { HistoryCache } from '../../read/history-cache.js';
import type { Views } from '../../read/views.js';
import { addressKeyParam, addressParam, enumParam, intParam } from '../validate.js';
import { errors, invalidParameter, marketNotFound } from '../../errors.js';
import { nowSeconds } from '../../domain/clock.js';
import { decodeTradeCursor, encodeTradeCursor, type CursorScope } from '../../domain/cursor.js';
import { toTradeJson, type TradePosition } from '../../store/port/repos.js';
import { tradeOnChain } from '../../domain/trade-json.js';
import { MAX_BARS } from '../../domain/history-range.js';
import { barQuery, isBarQueryError } from '../../domain/history-range.js';
import { metricBars } from '../../domain/chart-metric.js';
import { fillPrevious } from '../../domain/fill-bars.js';
import { bucketStart, nextBucket } from '../../domain/resolution.js';
import type { SeriesSource } from '../../read/history-cache.js';
import { findToken, MAX_TIME, resolutionParam, tokenPath as tokenPathOf } from './params.js';
import * as S from './schemas/tokens.js';

/** What the trade and candle routes read. */
export type TradeRouteDeps = {
  clock: Clock;
  views: Pick<Views, 'tokens'>;
  services: Pick<Services, 'repos' | 'chains'>;
  cache: ResponseCache;
  history: HistoryCache;
};

export function addTradeRoutes(api: ApiRouter, deps: TradeRouteDeps): void {
  const { tokens } = deps.views;
  const { trades, candles, marketCandles, meta } = deps.services.repos;
  const history = deps.history;
  const { chains } = deps.services;
  // Paths and `market=` name a token or market by its address, or `chain:address` (docs/chains.md).
  const tokenPath = tokenPathOf(chains);
  // The key cursors are signed with, made on first use and kept in the store (one for every
  // instance of a deployment); read once, and read again after a failed read.
  let secret: Promise<Buffer> | null = null;
  const cursorKey = (): Promise<Buffer> => {
    if (secret === null) {
      const p = meta.getOrCreate('cursor_secret', () => randomBytes(32).toString('hex')).then((hex) => Buffer.from(hex, 'hex'));
      p.catch(() => {
        if (secret === p) secret = null;
      });
      secret = p;
    }
    return secret;
  };
  void cursorKey();

  api.add(
    {
      method: 'get',
      path: '/v1/token/:address/trades',
      summary: 'Trades of a token, newest first, by cursor; optionally only after <= blockTime < before',
      access: 'public',
      tag: 'tokens',
      params: tokenPath,
      query: z.object({
        limit: intParam(1, 1000).prefault('100'),
        cursor: z.string().optional().describe('nextCursor of the previous page'),
        side: enumParam(['buy', 'sell'] as const).optional(),
        wallet: addressParam().optional(),
        after: intParam(0, MAX_TIME).optional(),
        before: intParam(0, MAX_TIME).optional(),
      }),
      response: S.tokenTrades,
      example: S.tokenTradesExample,
    },
    async ({ query: q, params }) => {
      const token = await findToken(tokens, params.address);
      const secret = await cursorKey();
      const limit = q.limit;
      if (q.after !== undefined && q.before !== undefined && q.after >= q.before) throw invalidParameter('after', 'after must be less than before');
      const scope: CursorScope = { token: token.address, side: q.side ?? null, wallet: q.wallet ?? null, after: q.after ?? null, before: q.before ?? null };
      // A page depends only on the token's trades and the query, so it is cached until the token
      // changes. A cached first page keeps the snapshot bound it was made with: no trade of this
      // token has come since (that would have dropped it), so the walk it starts is still exact.
      const key = `trades|${limit}|${q.side ?? ''}|${q.wallet ?? ''}|${q.after ?? ''}|${q.before ?? ''}|${q.cursor ?? ''}`;
      return deps.cache.json({ token: token.id }, key, async () => {
        // The cursor is checked where the page is made: a page is cached only for a cursor that
        // passed, under this token and a key holding the cursor and its whole scope, so a cached
        // page needs no second check (its HMAC was most of a deep page's cost; docs/api.md, Token reads).
        let after: TradePosition | null = null;
        let bound = 0;
        if (q.cursor !== undefined) {
          const c = decodeTradeCursor(secret, scope, q.cursor);
          if (c === null) throw errors.invalidCursor();
          after = { blockTime: c.blockTime, id: c.id };
          bound = c.bound;
        }
        // The snapshot: trades stored later (newer or backfilled) have larger ids and stay out of this walk.
        const snapshot = after === null ? await trades.maxId() : bound;
        // One more than asked tells whether another page exists, so an exactly full last page ends the walk.
        const rows = await trades.page(token.id, scope, after, snapshot, limit + 1);
        const page = rows.length > limit ? rows.slice(0, limit) : rows;
        const last = page.at(-1);
        return {
          trades: page.map((r) => tradeOnChain(toTradeJson(r), chains)),
          nextCursor:
            rows.length > limit && last !== undefined ? encodeTradeCursor(secret, scope, { blockTime: last.blockTime, id: last.id, bound: snapshot }) : null,
        };
      });
    },
  );

  api.add(
    {
      method: 'get',
      path: '/v1/token/:address/candles',
      summary:
        'OHLCV bars of a token (the bars of /udf/history), or of one of its markets in USD or in the quote token; in price or market cap; empty buckets filled on request',
      access: 'public',
      tag: 'tokens',
      params: tokenPath,
      query: z.object({
        resolution: resolutionParam(),
        from: intParam(0, MAX_TIME).optional(),
        to: intParam(0, MAX_TIME).optional(),
        countback: intParam(0, MAX_BARS).optional(),
        market: addressKeyParam(chains).optional().describe('A market (pair) of the token: only its trades make the bars'),
        currency: enumParam(['usd', 'native'] as const)
          .prefault('usd')
          .describe('usd (priceUsd, volumeUsd), or native with a market: price quoteAmount / amount, volume in quote units'),
        metric: enumParam(['price', 'mcap'] as const)
          .prefault('price')
          .describe("price, or mcap: o, h, l, c times the token's current circulating supply (volume stays USD); 400 for a token without one"),
        fill: enumParam(['none', 'previous'] as const)
          .prefault('none')
          .describe(
            'previous: every empty bucket after the first bar, up to `to` (and no later than the current bucket), as o = h = l = c = the previous close, v = 0',
          ),
      }),
      response: S.tokenCandles,
      example: S.tokenCandlesExample,
    },
    async ({ query: q, params }) => {
      const token = await findToken(tokens, params.address);
      const currency = q.currency;
      // A token's markets may have different quotes: native prices mean something for one market only.
      if (currency === 'native' && q.market === undefined) throw invalidParameter('currency', 'currency=native needs a market');
      // A cap is a USD amount: the quote token's prices times a supply mean nothing on their own.
      if (q.metric === 'mcap' && currency === 'native') throw invalidParameter('metric', 'metric=mcap is in USD: it cannot be combined with currency=native');
      const supply = token.circulatingSupply;
      if (q.metric === 'mcap' && supply === null) throw invalidParameter('metric', 'metric=mcap needs a circulating supply, and this token has none');
      if (q.market !== undefined && (await marketCandles.marketToken(q.market)) !== token.id) throw marketNotFound(q.market, token.address);
      // `to` defaults to just after the current second, so the bar in progress is included.
      const now = nowSeconds(deps.clock);
      const to = q.to ?? now + 1;
      const query = barQuery({ from: q.from, to, countback: q.countback });
      if (isBarQueryError(query))
        throw invalidParameter('from', query.problem === 'required' ? 'from is required unless countback is given' : 'from must be less than to');
      const res = q.resolution;
      const market = q.market;
      const source: SeriesSource =
        market === undefined
          ? { read: (bq) => candles.readBars(token.id, res, bq), newestBefore: (before) => candles.newestBarBefore(token.id, res, before) }
          : {
              read: (bq) => marketCandles.readBars(token.id, market, currency, res, bq),
              newestBefore: (before) => marketCandles.newestBarBefore(token.id, market, res, before),
            };
      // One entry for every request selecting the same bars, kept until the token changes (src/read/history-cache.ts).
      // The stamp comes before the series' own reads: a trade landing meanwhile drops this answer.
      const stamp = deps.cache.stamp({ token: token.id });
      const answer = await history.answer(token.id, `${market ?? ''}|${market === undefined ? 'usd' : currency}|${res.key}`, res, source, query);
      let miss = false;
      // Filled bars run up to `to`, but never past the bucket in progress: the key names that end,
      // since "up to now" answers share one entry only while it stays the same bucket.
      const fillEnd = q.fill === 'previous' ? Math.min(to, nextBucket(res, bucketStart(res, now))) : null;
      const shape = `${q.metric === 'mcap' ? `mcap:${supply}` : 'price'}|${fillEnd ?? ''}`;
      const body = await deps.cache.json(stamp, `candles|${shape}|${answer.key}`, async () => {
        miss = true;
        const read = (await answer.compute()).bars;
        const filled = fillEnd === null ? read : fillPrevious(read, res, fillEnd, query.mode === 'countback' ? query.countback : MAX_BARS);
        const bars = metricBars(filled, q.metric, supply);
        return { resolution: res.key, candles: bars.map((b) => ({ t: b.t, o: b.o, h: b.h, l: b.l, c: b.c, v: b.v })) };
      });
      history.counted(query, !miss);
      return body;
    },
  );
}

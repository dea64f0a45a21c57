/**
 * The live hub's reads, answered by the code that serves the HTTP routes: bars by the candle
 * repo behind /udf/history, prices and overviews by the cached views behind /v1/prices and
 * /v1/token/:address/overview, names by the resolver of /udf/symbols. So what the stream says is
 * what a refetch would say (docs/api.md, Live stream).
 */
import type { AppDeps } from './types.js';
import type { StreamSource } from '../stream/types.js';
import { createSymbolsRepo } from '../store/symbols-repo.js';
import { createCandlesRepo } from '../store/candles-repo.js';
import { createStreamRepo } from '../store/stream-repo.js';
import { createTradesRepo } from '../store/trades-repo.js';
import { bucketStart } from '../domain/resolution.js';
import { nowSeconds } from '../domain/clock.js';

/** A `to` after every bar: the newest bars are read up to here. */
const END = 253402300800;

export function streamSource(deps: Omit<AppDeps, 'stream'>): StreamSource {
  const db = deps.store.db;
  const symbols = createSymbolsRepo(db, deps.config.chain);
  const candles = createCandlesRepo(db);
  const repo = createStreamRepo(db);
  const trades = createTradesRepo(db);
  const views = deps.views;
  const accounts = deps.services.accounts.repo;
  const now = () => nowSeconds(deps.clock);

  return {
    resolve(name) {
      const found = symbols.resolve(name);
      return found === null ? null : { id: found.token.id, address: found.token.address };
    },
    maxTradeId: () => trades.maxId(),
    tradesAfter: (tokenId, afterId, upTo, limit) => repo.tradesAfter(tokenId, afterId, upTo, limit),
    commitEnds: (from, to) => repo.commitEnds(from, to),
    barsFrom: (tokenId, res, from) => candles.readBars(tokenId, res, { mode: 'range', from: bucketStart(res, Math.min(from, END - 1)), to: END }),
    barAt: (tokenId, res, t) => candles.readBars(tokenId, res, { mode: 'range', from: t, to: t + 1 }).find((b) => b.t === t) ?? null,
    newestBar: (tokenId, res) => candles.readBars(tokenId, res, { mode: 'countback', to: END, countback: 1 })[0] ?? null,
    price(tokenId) {
      const t = views.tokens.byId(tokenId);
      if (t === undefined) return null;
      return { priceUsd: t.priceUsd, priceChangePct24h: views.token.figures(t, '24h', now()).priceChangePct, lastTradeAt: t.lastTradeAt };
    },
    overview(tokenId) {
      const t = views.tokens.byId(tokenId);
      return t === undefined ? null : views.token.overview(t, now());
    },
    settled: () => deps.store.settled(),
    checkExternalChanges: () => deps.store.checkExternalChanges(),
    onChange: (listener) => deps.store.onChange((c) => listener(c.tokens, c.accounts === true)),
    keyValid(keyId) {
      const key = accounts.key(keyId);
      return key !== undefined && key.revokedAt === null && (key.expiresAt === null || now() < key.expiresAt);
    },
  };
}

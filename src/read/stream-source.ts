/**
 * The live hub's reads, answered by the code that serves the HTTP routes: bars by the candle
 * repo behind /udf/history, prices and overviews by the cached views behind /v1/prices and
 * /v1/token/:address/overview, names by the resolver of /udf/symbols. So what the stream says is
 * what a refetch would say (docs/api.md, Live stream). Every read goes through the storage
 * boundary (src/store/port/repos.ts) and answers a promise.
 */
import type { Clock } from '../domain/clock.js';
import type { StoreHandle } from '../store/port/handle.js';
import type { Services } from '../services/index.js';
import type { Views } from './views.js';
import type { StreamReads } from '../stream/types.js';
import { bucketStart } from '../domain/resolution.js';
import { nowSeconds } from '../domain/clock.js';
import { addressFields, showsChains } from '../domain/chains.js';
import { tradeOnChain } from '../domain/trade-json.js';

/** A `to` after every bar: the newest bars are read up to here. */
const END = 253402300800;

export function streamSource(deps: { clock: Clock; store: StoreHandle; services: Pick<Services, 'repos' | 'chains'>; views: Views }): StreamReads {
  const { chains } = deps.services;
  const { symbols, candles, stream: repo, trades, accounts, removals } = deps.services.repos;
  const views = deps.views;
  const now = () => nowSeconds(deps.clock);

  return {
    async resolve(name) {
      const found = await symbols.resolve(name);
      return found === null ? null : { id: found.token.id, address: found.token.address };
    },
    maxTradeId: () => trades.maxId(),
    // Trades as the trades route shows them: a plain market and its chain when there are several (docs/chains.md).
    tradesAfter: showsChains(chains)
      ? async (tokenId, afterId, upTo, limit) => (await repo.tradesAfter(tokenId, afterId, upTo, limit)).map((t) => tradeOnChain(t, chains))
      : (tokenId, afterId, upTo, limit) => repo.tradesAfter(tokenId, afterId, upTo, limit),
    fields: (key) => addressFields(key, chains),
    commitEnds: (from, to) => repo.commitEnds(from, to),
    lastRemovalSeq: () => removals.lastRemovalSeq(),
    removalsAfter: (after, limit) => removals.removalsAfter(after, limit),
    barsFrom: (tokenId, res, from) => candles.readBars(tokenId, res, { mode: 'range', from: bucketStart(res, Math.min(from, END - 1)), to: END }),
    barAt: async (tokenId, res, t) => (await candles.readBars(tokenId, res, { mode: 'range', from: t, to: t + 1 })).find((b) => b.t === t) ?? null,
    newestBar: async (tokenId, res) => (await candles.readBars(tokenId, res, { mode: 'countback', to: END, countback: 1 }))[0] ?? null,
    supply: async (tokenId) => (await views.tokens.byId(tokenId))?.circulatingSupply ?? null,
    async price(tokenId) {
      const t = await views.tokens.byId(tokenId);
      if (t === undefined) return null;
      return { priceUsd: t.priceUsd, priceChangePct24h: (await views.token.figures(t, '24h', now())).priceChangePct, lastTradeAt: t.lastTradeAt };
    },
    async overview(tokenId) {
      const t = await views.tokens.byId(tokenId);
      return t === undefined ? null : views.token.overview(t, now());
    },
    settled: () => deps.store.settled(),
    checkExternalChanges: () => deps.store.checkExternalChanges(),
    onChange: (listener) => deps.store.onChange((c) => listener(c.tokens, c.accounts === true)),
    async keyValid(keyId) {
      const key = await accounts.key(keyId);
      return key !== undefined && key.revokedAt === null && (key.expiresAt === null || now() < key.expiresAt);
    },
  };
}

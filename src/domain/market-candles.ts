/**
 * Per-market candle rollups (README, Pairs and native prices): the bars of one market, in USD
 * (priceUsd, volumeUsd) and in the quote token (price = quoteAmount / amount, volume =
 * quoteAmount). Same buckets and open / close rule as the token's rollups: open is the first
 * trade of the bucket in trade order (blockTime, id), close the last.
 */
import { ROLLUP_SECONDS } from './resolution.js';

/** A partial market rollup bucket, with the trade-order keys of its open and close. */
export type MarketRollupDelta = {
  tokenId: number;
  market: string;
  res: number;
  t: number;
  o: number;
  h: number;
  l: number;
  c: number;
  v: number;
  qo: number;
  qh: number;
  ql: number;
  qc: number;
  qv: number;
  n: number;
  oTime: number;
  oId: number;
  cTime: number;
  cId: number;
};

export type TradeForMarketRollup = {
  id: number;
  tokenId: number;
  market: string;
  blockTime: number;
  priceUsd: number;
  volumeUsd: number;
  amount: number;
  quoteAmount: number;
};

/**
 * The price of a trade in its quote token. A trade of amount 0 has no such price: it takes the
 * USD-free ratio 0, as the backfill in SQL does (a division by zero there is NULL, coalesced to 0).
 */
export const nativePrice = (amount: number, quoteAmount: number): number => (amount > 0 ? quoteAmount / amount : 0);

const before = (t1: number, id1: number, t2: number, id2: number) => t1 < t2 || (t1 === t2 && id1 < id2);

/** Folds new trades into one delta per (token, market, rollup width, bucket). */
export function marketRollupDeltas(trades: Iterable<TradeForMarketRollup>): MarketRollupDelta[] {
  const byMarket = new Map<string, Map<number, MarketRollupDelta>>();
  for (const tr of trades) {
    const mk = `${tr.tokenId}|${tr.market}`;
    let byKey = byMarket.get(mk);
    if (byKey === undefined) byMarket.set(mk, (byKey = new Map()));
    const q = nativePrice(tr.amount, tr.quoteAmount);
    for (let i = 0; i < ROLLUP_SECONDS.length; i++) {
      const res = ROLLUP_SECONDS[i]!;
      const t = Math.floor(tr.blockTime / res) * res;
      const key = t * 8 + i;
      const d = byKey.get(key);
      if (d === undefined) {
        byKey.set(key, {
          tokenId: tr.tokenId,
          market: tr.market,
          res,
          t,
          o: tr.priceUsd,
          h: tr.priceUsd,
          l: tr.priceUsd,
          c: tr.priceUsd,
          v: tr.volumeUsd,
          qo: q,
          qh: q,
          ql: q,
          qc: q,
          qv: tr.quoteAmount,
          n: 1,
          oTime: tr.blockTime,
          oId: tr.id,
          cTime: tr.blockTime,
          cId: tr.id,
        });
        continue;
      }
      if (before(tr.blockTime, tr.id, d.oTime, d.oId)) {
        d.o = tr.priceUsd;
        d.qo = q;
        d.oTime = tr.blockTime;
        d.oId = tr.id;
      }
      if (before(d.cTime, d.cId, tr.blockTime, tr.id)) {
        d.c = tr.priceUsd;
        d.qc = q;
        d.cTime = tr.blockTime;
        d.cId = tr.id;
      }
      if (tr.priceUsd > d.h) d.h = tr.priceUsd;
      if (tr.priceUsd < d.l) d.l = tr.priceUsd;
      if (q > d.qh) d.qh = q;
      if (q < d.ql) d.ql = q;
      d.v += tr.volumeUsd;
      d.qv += tr.quoteAmount;
      d.n += 1;
    }
  }
  const out: MarketRollupDelta[] = [];
  for (const byKey of byMarket.values()) for (const d of byKey.values()) out.push(d);
  return out;
}

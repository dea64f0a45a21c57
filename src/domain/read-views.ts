/**
 * The read views' rows an ingest batch adds (docs/api.md, Token reads: the markets list and the
 * unique-wallet counts read them): each wallet's newest trade time per token (wallet_last), each
 * market's volume and count per bucket (market_rollups) and its last trade (market_last). Pure:
 * both engines apply these rows with their own SQL (src/store/sqlite/read-views-repo.ts,
 * src/store/pg/read-views.ts). A batch is folded first, so a busy market costs one row per bucket
 * and a busy wallet one row, not one per trade; backfilled trades fold in like any other (sums
 * add up, "last" compares trade order (blockTime, id)).
 */

/**
 * Bucket widths of market_rollups, widest first; each divides the one before, so a window's cover
 * has at most two segments per width.
 */
export const MARKET_ROLLUP_SECONDS = [3600, 60] as const;

/** What the read views need of a new trade. */
export type ViewTrade = { id: number; tokenId: number; blockTime: number; wallet: string; market: string; isBuy: boolean; volumeUsd: number; priceUsd: number };

/** A wallet's newest trade time on a token. */
export type WalletLastRow = { tokenId: number; wallet: string; last: number };
/** The sums to add to one market's bucket of one width. */
export type MarketRollupRow = { tokenId: number; res: number; t: number; market: string; v: number; n: number };
/** A market's newest trade of the batch: kept when newer than the stored one. */
export type MarketLastRow = { tokenId: number; market: string; blockTime: number; tradeId: number; priceUsd: number };

export type ReadViewRows = { walletLast: WalletLastRow[]; marketRollups: MarketRollupRow[]; marketLast: MarketLastRow[] };

/** Sums of one market's trades in one bucket of one width, buys and sells apart (v is vb + vs, added in that order). */
type Sums = { res: number; t: number; vb: number; vs: number; nb: number; ns: number };
/** A batch's trades of one market of one token, by bucket * 8 + width index (a bucket start is a multiple of its width). */
type Fold = { tokenId: number; market: string; buckets: Map<number, Sums>; last: ViewTrade };

/** The rows a batch's new trades add to the read views: each list in the order its keys first appear. */
export function readViewRows(trades: readonly ViewTrade[]): ReadViewRows {
  const wallets = new Map<string, WalletLastRow>();
  const markets = new Map<string, Fold>();
  for (const tr of trades) {
    const wk = `${tr.tokenId}|${tr.wallet}`;
    const w = wallets.get(wk);
    if (w === undefined) wallets.set(wk, { tokenId: tr.tokenId, wallet: tr.wallet, last: tr.blockTime });
    else if (tr.blockTime > w.last) w.last = tr.blockTime;

    const mk = `${tr.tokenId}|${tr.market}`;
    let f = markets.get(mk);
    if (f === undefined) markets.set(mk, (f = { tokenId: tr.tokenId, market: tr.market, buckets: new Map(), last: tr }));
    else if (tr.blockTime > f.last.blockTime || (tr.blockTime === f.last.blockTime && tr.id > f.last.id)) f.last = tr;
    for (let i = 0; i < MARKET_ROLLUP_SECONDS.length; i++) {
      const res = MARKET_ROLLUP_SECONDS[i]!;
      const t = Math.floor(tr.blockTime / res) * res;
      let d = f.buckets.get(t * 8 + i);
      if (d === undefined) f.buckets.set(t * 8 + i, (d = { res, t, vb: 0, vs: 0, nb: 0, ns: 0 }));
      if (tr.isBuy) {
        d.vb += tr.volumeUsd;
        d.nb++;
      } else {
        d.vs += tr.volumeUsd;
        d.ns++;
      }
    }
  }
  const marketRollups: MarketRollupRow[] = [];
  const marketLast: MarketLastRow[] = [];
  for (const f of markets.values()) {
    for (const d of f.buckets.values()) marketRollups.push({ tokenId: f.tokenId, res: d.res, t: d.t, market: f.market, v: d.vb + d.vs, n: d.nb + d.ns });
    marketLast.push({ tokenId: f.tokenId, market: f.market, blockTime: f.last.blockTime, tradeId: f.last.id, priceUsd: f.last.priceUsd });
  }
  return { walletLast: [...wallets.values()], marketRollups, marketLast };
}

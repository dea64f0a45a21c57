/**
 * Where each ingest transaction's trades end (docs/api.md, Live stream: the stream splits the new
 * trades after each end): the trade_commits rows an ingest writes, one per transaction however
 * many slices it takes. Pure: each engine applies the steps with its own SQL
 * (src/store/sqlite/stream-repo.ts, src/store/pg/stream-repo.ts).
 */

/** Commit rows kept: the stream only ever asks about the last few seconds of commits. */
export const KEEP_COMMITS = 100_000;
/** Prune once every this many transactions. */
export const PRUNE_EVERY = 1000;

/**
 * What one slice writes to trade_commits: `open` a transaction's row at its highest trade id
 * (then `prune` to the newest KEEP_COMMITS rows when due), or `move` the open row's end from
 * `from` to `last`.
 */
export type TradeCommitStep = { kind: 'open'; last: number; prune: boolean } | { kind: 'move'; last: number; from: number };

/**
 * The steps of one ingest's slices, in order: the first slice with trades of a transaction opens
 * its row, later ones move its end. `first` marks a transaction's first slice; slices without new
 * trades write nothing.
 */
export function tradeCommits(): (slice: { first: boolean; trades: readonly { id: number }[] }) => TradeCommitStep | null {
  let open: number | null = null;
  let transactions = 0;
  return ({ first, trades }) => {
    if (first) open = null;
    if (trades.length === 0) return null;
    let last = 0;
    for (const t of trades) if (t.id > last) last = t.id;
    const from = open;
    open = last;
    if (from !== null) return { kind: 'move', last, from };
    return { kind: 'open', last, prune: ++transactions % PRUNE_EVERY === 0 };
  };
}

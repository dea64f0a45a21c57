/**
 * Bars of a chart series kept in memory between requests (docs/architecture.md, History series),
 * so answers stay cached under live ingest: a series (token or pair, currency, resolution) keeps
 * its newest bars; a trade marks it stale from the trade's bucket on (ingest hook, in the write
 * transaction), so a new trade re-reads only the forming bar, and a backfilled one (or a removed
 * one: a retract hook) re-reads from its own bucket: never a bar that could have changed, never more than that. A change made by
 * another process drops every series (not told which tokens) or the series of the tokens it names. The answers themselves stay in the
 * response cache, keyed by what they select (src/domain/history-range.ts barQueryKey), so every
 * viewer of a token asking "up to now" shares one entry until the token's next trade.
 *
 * Reads await the store (either engine), so a series is brought up to date by one refresh at a
 * time (others wait for it), and a series dropped while its read was in flight is not written to.
 */
import type { Config } from '../config.js';
import type { StoreHandle } from '../store/port/handle.js';
import type { Services } from '../services/index.js';
import type { ResponseCache } from './response-cache.js';
import type { Bar } from '../domain/candles.js';
import { bucketStart, type Resolution } from '../domain/resolution.js';
import { barQueryKey, pickBars, MAX_BARS, type BarAnswer, type BarQuery } from '../domain/history-range.js';

/** Every trade time is before this (10000-01-01). */
const END_OF_TIME = 253402300800;
/** Bars read when a series is first asked for: a chart open asks for 300. */
const FIRST_READ = 500;
/** The most bars one series keeps; a request reaching further back reads the store directly. */
const SERIES_CAP = 2 * MAX_BARS;
/** Heap bytes of one kept bar (an object of six doubles, and its slot in the array). */
const BAR_BYTES = 120;

/** How one series reads the store (candles-repo or market-candles-repo, same rules). */
export type SeriesSource = {
  read(q: BarQuery): Promise<Bar[]>;
  newestBefore(before: number): Promise<number | null>;
};

type Series = {
  key: string;
  tokenId: number;
  res: Resolution;
  source: SeriesSource;
  /** Ascending; every bar of the series with t >= lo (all of them when lo is -Infinity). */
  known: Bar[];
  lo: number;
  /** The oldest trade time added since `known` was read (Infinity: none). */
  staleFrom: number;
  /** The refresh in flight, which later callers wait for. */
  refreshing: Promise<void> | null;
};

export type HistoryAnswer = {
  /** Equal for two requests of one series exactly when their answers are (while the data stays the same). */
  key: string;
  /** Computes the answer (call at most once, right away). */
  compute(): Promise<BarAnswer>;
};

export type HistoryCache = {
  /**
   * The answer of `q` for the series `seriesKey` (market, currency and resolution) of token
   * `tokenId`. With caching off (CACHE=off) every answer is read from the store.
   */
  answer(tokenId: number, seriesKey: string, res: Resolution, source: SeriesSource, q: BarQuery): Promise<HistoryAnswer>;
  /**
   * The key `answer` would give, without a promise, when the series is kept and up to date (no
   * trade since its last read, no read in flight); undefined otherwise, or with caching off. The
   * history route's cached answer is so found without awaiting anything.
   */
  keyNow(tokenId: number, seriesKey: string, res: Resolution, q: BarQuery): string | undefined;
  /** Counts one lookup of a history answer in the response cache (history_cache_lookups). */
  counted(q: BarQuery, hit: boolean): void;
  /** Series kept, and the bars they hold (for tests). */
  stats(): { series: number; bars: number };
};

const direct = async (source: SeriesSource, q: BarQuery): Promise<BarAnswer> => {
  const bars = await source.read(q);
  return { bars, nextTime: bars.length === 0 && q.mode === 'range' ? await source.newestBefore(q.from) : null };
};

/** The app's history cache (createApp makes one, beside the response cache it shares). */
export function createHistoryCache(deps: {
  cache: ResponseCache;
  config: Config;
  store: StoreHandle;
  services: Pick<Services, 'metrics' | 'ingest' | 'repos'>;
}): HistoryCache {
  const enabled = deps.cache.enabled;
  // A quarter of CACHE_MAX_MB, on top of it (docs/operations.md, Memory).
  const maxBars = Math.max(MAX_BARS, Math.floor(deps.config.cacheMaxBytes / 4 / BAR_BYTES));
  // Least recently used first (a Map iterates in insertion order; a hit re-inserts).
  const series = new Map<string, Series>();
  /** The series inserted last, so the most recently used: asking for it again does not re-insert it (see byte-lru.ts). */
  let newest: Series | undefined;
  const byToken = new Map<number, Set<Series>>();
  let bars = 0;
  const lookups = enabled ? deps.services.metrics.historyLookups : { chart: { hit: 0, miss: 0 }, poll: { hit: 0, miss: 0 } };

  const drop = (s: Series) => {
    series.delete(s.key);
    byToken.get(s.tokenId)?.delete(s);
    bars -= s.known.length;
  };
  const setKnown = (s: Series, known: Bar[], lo: number) => {
    // A series dropped while its read awaited (evicted, or every series dropped) stays out.
    if (series.get(s.key) !== s) return;
    bars += known.length - s.known.length;
    s.known = known;
    s.lo = lo;
    for (const old of series.values()) {
      if (bars <= maxBars || old === s) break;
      drop(old);
    }
  };

  const markStale = (tokenId: number, from: number) => {
    const kept = byToken.get(tokenId);
    if (kept !== undefined) for (const s of kept) if (from < s.staleFrom) s.staleFrom = from;
  };
  // Where requests go on reading (on other connections) between the hook, inside the ingest's
  // transaction, and its commit (PostgreSQL), a refresh then reads the bars without the batch
  // and marks the series fresh. So the oldest trade time per token is kept until the commit is
  // announced, and marked again then. A change heard from another process names tokens, not
  // trades: their series are read again whole.
  const afterCommit = deps.store.readsDuringWrites;
  const pending = new Map<number, number>();

  if (enabled) {
    const stale = ({ trades }: { trades: readonly { tokenId: number; blockTime: number }[] }) => {
      for (const tr of trades) {
        markStale(tr.tokenId, tr.blockTime);
        if (afterCommit && !(tr.blockTime >= (pending.get(tr.tokenId) ?? Infinity))) pending.set(tr.tokenId, tr.blockTime);
      }
    };
    deps.services.ingest.addHook(stale);
    // A removed trade (docs/indexer.md, Reorgs) changes the bars from its bucket on, as an added
    // one does. A deleted token's series are read again whole: on SQLite its record number may
    // name the next new token.
    deps.services.ingest.addRetractHook((batch) => {
      stale(batch);
      const deleted = new Set(batch.deletedTokens);
      for (const tr of batch.trades) {
        if (!deleted.has(tr.token)) continue;
        markStale(tr.tokenId, -Infinity);
        if (afterCommit) pending.set(tr.tokenId, -Infinity);
      }
    });
    deps.store.onChange((change) => {
      if (change.tokens === 'all') {
        series.clear();
        byToken.clear();
        pending.clear();
        bars = 0;
        return;
      }
      if (!afterCommit && change.remote !== true) return;
      for (const id of change.tokens) {
        markStale(id, (change.remote === true ? undefined : pending.get(id)) ?? -Infinity);
        pending.delete(id);
      }
    });
  }

  /** The series, its stale bars read again (at most the bars from the oldest new trade's bucket on). */
  async function fresh(tokenId: number, seriesKey: string, res: Resolution, source: SeriesSource): Promise<Series> {
    const key = `${tokenId}|${seriesKey}`;
    let s = series.get(key);
    if (s === undefined) {
      s = { key, tokenId, res, source, known: [], lo: Infinity, staleFrom: -Infinity, refreshing: null };
      let set = byToken.get(tokenId);
      if (set === undefined) byToken.set(tokenId, (set = new Set()));
      set.add(s);
      series.set(key, s);
    } else if (s !== newest) {
      series.delete(key);
      series.set(key, s);
    }
    newest = s;
    s.source = source;
    // A trade that lands while a refresh reads marks the series stale again: go round once more.
    while (s.refreshing !== null || s.staleFrom !== Infinity) {
      if (s.refreshing === null) {
        const p = refresh(s, res, source).finally(() => (s.refreshing = null));
        s.refreshing = p;
      }
      await s.refreshing;
      // Dropped meanwhile: the caller reads this series's bars directly, as for a new one.
      if (series.get(key) !== s) break;
    }
    return s;
  }

  /** Reads the stale bars of `s` again; a failed read leaves it stale from where it was. */
  async function refresh(s: Series, res: Resolution, source: SeriesSource): Promise<void> {
    const staleFrom = s.staleFrom;
    const cut = staleFrom === -Infinity ? -Infinity : bucketStart(res, staleFrom);
    s.staleFrom = Infinity;
    try {
      if (cut <= s.lo) {
        // Nothing kept is still known to be right: start again from the newest bars.
        const first = await source.read({ mode: 'countback', to: END_OF_TIME, countback: FIRST_READ });
        setKnown(s, first, first.length < FIRST_READ ? -Infinity : first[0]!.t);
        return;
      }
      const tail = await source.read({ mode: 'range', from: cut, to: END_OF_TIME });
      let keep = s.known.length;
      while (keep > 0 && s.known[keep - 1]!.t >= cut) keep--;
      // A read of MAX_BARS keeps the newest: older bars between `cut` and it are not known.
      if (tail.length === MAX_BARS) setKnown(s, tail, tail[0]!.t);
      else setKnown(s, keep === s.known.length && tail.length === 0 ? s.known : [...s.known.slice(0, keep), ...tail], s.lo);
    } catch (err) {
      s.staleFrom = Math.min(s.staleFrom, staleFrom);
      throw err;
    }
  }

  /** The answer from the kept bars, reading older bars once when they are not kept yet. */
  async function compute(s: Series, mine: Bar[], myLo: number, q: BarQuery): Promise<BarAnswer> {
    let picked = pickBars(mine, myLo, q);
    if (picked === null && q.to > myLo) {
      const have = mine.filter((b) => b.t < q.to).length;
      const older =
        q.mode === 'countback'
          ? await s.source.read({ mode: 'countback', to: myLo, countback: Math.max(q.countback - have, FIRST_READ) })
          : await s.source.read({ mode: 'range', from: q.from, to: myLo });
      const asked = q.mode === 'countback' ? Math.max(q.countback - have, FIRST_READ) : MAX_BARS;
      // Fewer than asked: nothing older (countback), or every bar from `from` on (range).
      const lo = older.length < asked ? (q.mode === 'countback' ? -Infinity : q.from) : older[0]!.t;
      const known = [...older, ...mine];
      picked = pickBars(known, lo, q);
      // Kept only when the series did not move on while the older bars were read.
      if (known.length <= SERIES_CAP && s.known === mine && s.refreshing === null && s.staleFrom === Infinity) setKnown(s, known, lo);
    }
    if (picked === null) return direct(s.source, q);
    return { bars: picked.bars, nextTime: picked.nextTime === undefined ? await s.source.newestBefore((q as { from: number }).from) : picked.nextTime };
  }

  return {
    async answer(tokenId, seriesKey, res, source, q) {
      if (!enabled) return { key: '', compute: () => direct(source, q) };
      const s = await fresh(tokenId, seriesKey, res, source);
      // Dropped while it was read: answered from the store, keyed by the query exactly as asked.
      if (series.get(s.key) !== s) return { key: `${seriesKey}|direct|${JSON.stringify(q)}`, compute: () => direct(source, q) };
      // The kept bars the key describes: a refresh before compute() replaces, never edits, them.
      const known = s.known;
      const lo = s.lo;
      const key = `${seriesKey}|${barQueryKey(res, q, known.at(-1)?.t ?? null)}`;
      return { key, compute: () => compute(s, known, lo, q) };
    },
    keyNow(tokenId, seriesKey, res, q) {
      if (!enabled) return undefined;
      const key = `${tokenId}|${seriesKey}`;
      const s = series.get(key);
      if (s === undefined || s.refreshing !== null || s.staleFrom !== Infinity) return undefined;
      // Most recently used, as `answer` makes it.
      if (s !== newest) {
        series.delete(key);
        series.set(key, s);
        newest = s;
      }
      return `${seriesKey}|${barQueryKey(res, q, s.known.at(-1)?.t ?? null)}`;
    },
    counted(q, hit) {
      const kind = q.mode === 'countback' && q.countback <= 10 ? lookups.poll : lookups.chart;
      if (hit) kind.hit++;
      else kind.miss++;
    },
    stats: () => ({ series: series.size, bars }),
  };
}

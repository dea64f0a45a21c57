/**
 * The window board (docs/api.md, Discovery): for one window w, the exact figures at `asOf` of every
 * token traded in (asOf - w, asOf], kept in memory and brought forward to a newer `now` by
 * recomputing only the tokens whose figures can have changed:
 * - tokens an ingest touched, whichever process wrote (the token change log of migration 009);
 * - tokens with a trade in (asOf - w, now - w]: it left the window and may be the new base price;
 * - tokens with a trade in (asOf, now]: a trade stored ahead of the clock entered the window.
 * Anything else (a change log pruned past the board's place, a clock that went back or jumped
 * more than five minutes) rebuilds the board. Work is done in slices that yield to the event
 * loop, so no request blocks it however many tokens are active. The rankings are sorted once
 * per rebuild and then only re-place the recomputed tokens; every request reads them.
 */
import type { StoreHandle } from '../store/port/handle.js';
import { foldCase, type Repos, type TokenSummary } from '../store/port/repos.js';
import { WINDOW_SECONDS, windowFigures, type WindowFigures, type WindowKey } from '../domain/windows.js';
import { RANKINGS, insertSorted, type RankingKind } from '../domain/discovery.js';
import { slicedSort, type SliceLimits } from '../domain/sliced-sort.js';
import { boardRefresher } from './board-refresh.js';

export type BoardEntry = { t: TokenSummary; f: WindowFigures; sym: string; name: string };
export type BoardKind = RankingKind;

/**
 * Tokens recomputed between two yields to the event loop: each costs three index reads (about
 * 0.2 ms on the 200,000-token store), so a slice holds the loop for a few milliseconds.
 */
export const RECOMPUTE_SLICE = 32;
/**
 * Changed tokens an update re-places one by one (a binary search and a splice of the list each);
 * beyond this the ranking is sorted again in slices, so the cost per turn stays bounded.
 */
const REPLACE_MAX = 256;
/**
 * Seconds the clock may move before the board is rebuilt rather than brought forward: the
 * tokens with trades in a long span are found in one synchronous read, so the span stays short.
 */
const REBUILD_AFTER = 300;

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export type WindowBoard = ReturnType<typeof createWindowBoard>;

/** A board's entries and rankings as of one refresh: what a reader that awaits in between holds on to. */
export type BoardView = {
  get(id: number): BoardEntry | undefined;
  ranking(kind: BoardKind): readonly BoardEntry[];
};

/** The repos a board reads (src/store/port/repos.ts). */
export type WindowBoardRepos = Pick<Repos, 'discovery' | 'window' | 'tokenChanges'>;

/** `sort` bounds the work of one slice of a rankings' sort (smaller in tests, to slice few tokens). */
export function createWindowBoard(store: StoreHandle, repos: WindowBoardRepos, window: WindowKey, opts: { sort?: SliceLimits } = {}) {
  const seconds = WINDOW_SECONDS[window];
  const { discovery: repo, window: windows, tokenChanges: changes } = repos;
  let entries = new Map<number, BoardEntry>();
  let asOf: number | null = null;
  /** The last change log entry the board has applied. */
  let seen = 0;
  /**
   * The store's change count (`store.version()`) when the board was last known current: while it
   * has not moved, no change was heard (this process's commits, another's through the bus or
   * SQLite's data_version, or "everything" while the bus is down) and the board is current
   * without reading the change log on every request (docs/architecture.md, Caches).
   */
  let heard = -1;
  /**
   * Tokens this process announced as changed (store notifications). Ingest also writes them to
   * the change log; this covers any other in-process writer that announces what it changed.
   */
  let dirty = new Set<number>();
  store.onChange((change) => {
    if (change.tokens !== 'all') for (const id of change.tokens) dirty.add(id);
  });
  let generation = 0;
  let sorted = new Map<BoardKind, { generation: number; list: BoardEntry[] }>();
  /** Tokens recomputed so far (for tests that pin the cost of moving the clock). */
  let recomputed = 0;
  /** Pauses of the rankings' sorts so far (for tests that pin that a rebuild's sort is sliced). */
  let sortPauses = 0;
  const pauseSort = (): Promise<void> => {
    sortPauses++;
    return yieldToLoop();
  };

  /** The token's entry at `now`, or null when it has no trade in the window. */
  async function recompute(id: number, now: number): Promise<BoardEntry | null> {
    recomputed++;
    const t = await repo.summary(id);
    if (t === undefined || t.lastTradeAt === null || t.lastTradeAt <= now - seconds) return null;
    const [w, base] = await Promise.all([windows.window(id, now, seconds, t.lastTradeAt), windows.priceAt(id, now - seconds)]);
    return { t, f: windowFigures(w, t.priceUsd, base), sym: foldCase(t.symbol), name: foldCase(t.name) };
  }

  /** Recomputes `ids` into `into`, a slice of tokens read together between two yields. */
  async function recomputeAll(into: Map<number, BoardEntry>, ids: Iterable<number>, now: number): Promise<void> {
    let slice: number[] = [];
    const flush = async () => {
      const got = await Promise.all(slice.map((id) => recompute(id, now)));
      slice.forEach((id, i) => {
        const e = got[i];
        if (e === null || e === undefined) into.delete(id);
        else into.set(id, e);
      });
      slice = [];
    };
    for (const id of ids) {
      slice.push(id);
      if (slice.length === RECOMPUTE_SLICE) {
        await flush();
        await yieldToLoop();
      }
    }
    if (slice.length > 0) await flush();
  }

  /**
   * One refresh to `now`. A rebuild fills a new map and an update recomputes tokens in place;
   * either way `asOf` and `seen` move only at the end, so a step that fails part way is redone
   * whole by the next one (recomputing a token twice gives the same entry).
   */
  async function step(now: number): Promise<void> {
    // Taken before any read: a change heard after this point makes the board not current.
    const version = store.version();
    heard = -1;
    // Read before the tokens: a change committed after this point is applied by the next step.
    const log = await changes.bounds();
    const rebuild = asOf === null || now < asOf || now - asOf > REBUILD_AFTER || log.first > seen + 1;
    let ids: Set<number> | number[];
    let into = entries;
    const announced = dirty;
    dirty = new Set();
    if (rebuild) {
      into = new Map();
      ids = await repo.tradedSince(now - seconds + 1);
    } else {
      const [logged, left, entered] = await Promise.all([
        changes.since(seen, log.last),
        repo.tradedBetween(asOf! - seconds + 1, now - seconds + 1),
        repo.tradedBetween(asOf! + 1, now + 1),
      ]);
      ids = new Set([...announced, ...logged, ...left, ...entered]);
    }
    try {
      await recomputeAll(into, ids, now);
    } catch (err) {
      for (const id of announced) dirty.add(id);
      throw err;
    }
    // A rebuild sorts each ranking here rather than in the first request that reads it, in
    // slices of bounded comparisons (src/domain/sliced-sort.ts): one sort of every traded token
    // grows with the store. An update re-places only the tokens it recomputed (a linear pass and a
    // binary search each), one ranking a turn, instead of sorting every traded token again.
    const lists = new Map<BoardKind, { generation: number; list: BoardEntry[] }>();
    if (rebuild) {
      for (const [kind, { holds, order }] of Object.entries(RANKINGS) as [BoardKind, (typeof RANKINGS)[BoardKind]][]) {
        await yieldToLoop();
        lists.set(kind, { generation: generation + 1, list: await slicedSort([...into.values()].filter(holds), order, pauseSort, opts.sort) });
      }
    } else {
      const changed = new Set(ids);
      for (const [kind, cached] of sorted) {
        if (changed.size > 0) await yieldToLoop();
        let list = cached.list;
        if (changed.size > REPLACE_MAX) list = await slicedSort([...into.values()].filter(RANKINGS[kind].holds), RANKINGS[kind].order, pauseSort, opts.sort);
        else if (changed.size > 0) list = replace(into, kind, cached.list, changed);
        lists.set(kind, { generation: generation + 1, list });
      }
    }
    entries = into;
    seen = log.last;
    heard = version;
    asOf = now;
    generation++;
    sorted = lists;
  }

  /** Whether the board is exact for `now`: no change heard since it was, or none in the change log. */
  async function current(now: number): Promise<boolean> {
    if (asOf !== now || dirty.size !== 0) return false;
    const version = store.version();
    if (version === heard) return true;
    // Something was heard (a change of accounts only, say): the log says whether tokens moved.
    if ((await changes.last()) !== seen) return false;
    heard = version;
    return true;
  }

  function view(): BoardView {
    const at = { entries, generation, sorted };
    return {
      get: (id) => at.entries.get(id),
      ranking(kind) {
        const cached = at.sorted.get(kind);
        if (cached !== undefined && cached.generation === at.generation) return cached.list;
        const { holds, order } = RANKINGS[kind];
        const list = [...at.entries.values()].filter(holds).sort(order);
        at.sorted.set(kind, { generation: at.generation, list });
        return list;
      },
    };
  }

  function replace(from: Map<number, BoardEntry>, kind: BoardKind, list: readonly BoardEntry[], changed: ReadonlySet<number>): BoardEntry[] {
    const { holds, order } = RANKINGS[kind];
    const out = list.filter((e) => !changed.has(e.t.id));
    for (const id of changed) {
      const e = from.get(id);
      if (e !== undefined && holds(e)) insertSorted(out, e, order);
    }
    return out;
  }

  return {
    window,
    /** Brings the board to the clock's current second and returns the second it is exact for (board-refresh.ts). */
    refresh: boardRefresher({ asOf: () => asOf, current, step }),

    /** The entry of a token, when it traded in the window. */
    get: (id: number): BoardEntry | undefined => entries.get(id),

    /** The tokens of a ranking, best first (RANKINGS in src/domain/discovery.ts). */
    ranking: (kind: BoardKind): readonly BoardEntry[] => view().ranking(kind),

    /** The board as it is now, unchanged by later refreshes (for a reader that awaits). */
    view,

    /**
     * Counts the board's steps: its rankings change only when a step ends, so two reads with the
     * same version see the same rankings, and an answer made from them can be cached under it.
     */
    version: (): number => generation,

    /** Tokens recomputed since the board was made. */
    recomputed: (): number => recomputed,

    /** Pauses the rankings' sorts made since the board was made (src/domain/sliced-sort.ts). */
    sortPauses: (): number => sortPauses,
  };
}

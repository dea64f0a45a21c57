/**
 * The top-traders board (docs/api.md, Token reads): for one token and one window w, every wallet's
 * exact figures over the trades with blockTime in (asOf - w, asOf] and id <= seenId, kept in
 * memory in three rankings (volume, trades, net), and brought forward to a newer second by
 * applying only the trades that moved:
 * - trades with id <= seenId and blockTime in (asOf - w, now - w] left the window (subtracted);
 * - trades with id <= seenId and blockTime in (asOf, now] were stored ahead of the clock and
 *   entered it;
 * - trades with seenId < id <= the store's newest id (any process wrote them, backfill included)
 *   that fall in (now - w, now].
 * So a request costs the trades that moved since the last one plus the rows it returns, never a
 * pass over the window's wallets. The first request (or a clock that went back, jumped more than
 * five minutes, or too many moved trades) builds the board from the window's trades in pages
 * and sorts its rankings by a merge sort in slices, all yielding to the event loop; an update
 * reads in pages too and then applies its changes in one synchronous step, so a reader never
 * sees half of one.
 */
import type { Store } from '../../store/db.js';
import type { TraderBoardRepo, BoardTrade } from '../../store/trader-board-repo.js';
import { RankedSet, sortInSlices } from '../../domain/ranked-set.js';
import { TRADER_ORDERS, applyTrade, newTally, type Tally, type TraderSort } from '../../domain/trader-tally.js';

/** Rows read between two yields to the event loop. */
const PAGE = 2000;
/** Seconds the clock may move before the board is rebuilt rather than brought forward. */
const REBUILD_AFTER = 300;
/** Moved trades one update may apply in its synchronous step; more rebuilds instead. */
const MAX_MOVED = 20_000;
/** Refresh rounds one caller waits for while writes keep coming; then it answers. */
const MAX_ROUNDS = 3;

const SORTS = Object.keys(TRADER_ORDERS) as TraderSort[];
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

type State = { tallies: Map<string, Tally>; sets: Record<TraderSort, RankedSet<Tally>>; asOf: number; seenId: number };
/** A trade to apply: the row and +1 (entered) or -1 (left). */
type Move = { trade: BoardTrade; sign: 1 | -1 };

/** What a board has done so far, for tests that pin its cost. */
export type BoardStats = { rowsRead: number; builds: number; updates: number };

export type TraderBoard = ReturnType<typeof createTraderBoard>;

export function createTraderBoard(store: Store, repo: TraderBoardRepo, tokenId: number, seconds: number) {
  let state: State | null = null;
  let running: Promise<void> | null = null;
  const stats: BoardStats = { rowsRead: 0, builds: 0, updates: 0 };

  /** Reads pages of trades by time in (from, to] with id <= maxId into `sink`; false when `sink` asked to stop. */
  async function readByTime(from: number, to: number, maxId: number, sink: (page: BoardTrade[]) => boolean): Promise<boolean> {
    let afterTime = from;
    let afterId = Infinity;
    for (;;) {
      const page = repo.pageByTime(tokenId, afterTime, afterId, to, maxId, PAGE);
      stats.rowsRead += page.length;
      if (!sink(page)) return false;
      if (page.length < PAGE) return true;
      [afterId, afterTime] = page[page.length - 1]!;
      await yieldToLoop();
    }
  }

  async function build(now: number, maxId: number): Promise<void> {
    stats.builds++;
    const tallies = new Map<string, Tally>();
    await readByTime(now - seconds, now, maxId, (page) => {
      for (const [, , wallet, isBuy, vol] of page) {
        let t = tallies.get(wallet);
        if (t === undefined) tallies.set(wallet, (t = newTally(wallet)));
        applyTrade(t, isBuy === 1, vol, 1);
      }
      return true;
    });
    const all = [...tallies.values()];
    const sets = {} as State['sets'];
    for (const s of SORTS) sets[s] = RankedSet.fromSorted(TRADER_ORDERS[s], await sortInSlices(all, TRADER_ORDERS[s], yieldToLoop));
    state = { tallies, sets, asOf: now, seenId: maxId };
  }

  /** Collects the trades that moved from `s` to (now, maxId); null when there are too many. */
  async function moved(s: State, now: number, maxId: number): Promise<Move[] | null> {
    const moves: Move[] = [];
    const take = (sign: 1 | -1) => (page: BoardTrade[]) => {
      for (const trade of page) moves.push({ trade, sign });
      return moves.length <= MAX_MOVED;
    };
    if (now > s.asOf) {
      if (!(await readByTime(s.asOf - seconds, now - seconds, s.seenId, take(-1)))) return null;
      if (!(await readByTime(s.asOf, now, s.seenId, take(1)))) return null;
    }
    for (let after = s.seenId; ;) {
      const page = repo.pageById(tokenId, after, maxId, PAGE);
      stats.rowsRead += page.length;
      for (const trade of page) if (trade[1] > now - seconds && trade[1] <= now) moves.push({ trade, sign: 1 });
      if (moves.length > MAX_MOVED) return null;
      if (page.length < PAGE) return moves;
      after = page[page.length - 1]![0];
      await yieldToLoop();
    }
  }

  /** Applies `moves` to `s` in one synchronous step: each touched wallet leaves the rankings once and comes back once. */
  function apply(s: State, moves: readonly Move[], now: number, maxId: number): void {
    const touched = new Set<Tally>();
    for (const { trade, sign } of moves) {
      const [, , wallet, isBuy, vol] = trade;
      let t = s.tallies.get(wallet);
      if (t === undefined) {
        s.tallies.set(wallet, (t = newTally(wallet)));
        touched.add(t);
      } else if (!touched.has(t)) {
        for (const k of SORTS) s.sets[k].delete(t);
        touched.add(t);
      }
      applyTrade(t, isBuy === 1, vol, sign);
    }
    for (const t of touched) {
      if (t.buys + t.sells === 0) s.tallies.delete(t.wallet);
      else for (const k of SORTS) s.sets[k].add(t);
    }
    s.asOf = now;
    s.seenId = maxId;
  }

  async function step(now: number): Promise<void> {
    // A sliced ingest of this process shares the connection: wait for its commit, then take the
    // newest id; rows above it (a later write, committed or not) are left for the next step.
    for (let p = store.settled(); p !== null; p = store.settled()) await p;
    const maxId = repo.maxId();
    const s = state;
    if (s === null || now < s.asOf || now - s.asOf > REBUILD_AFTER || maxId < s.seenId) return build(now, maxId);
    const moves = await moved(s, now, maxId);
    if (moves === null) return build(now, maxId);
    stats.updates++;
    apply(s, moves, now, maxId);
  }

  return {
    /**
     * Brings the board to the clock's current second and returns the second its figures are
     * exact for. `clockNow` is read again after each wait; while writes keep coming, a caller
     * answers after a few rounds from the last complete board.
     */
    async refresh(clockNow: () => number): Promise<number> {
      for (let round = 0; ; round++) {
        if (running !== null) {
          await running;
          continue;
        }
        const now = clockNow();
        if (state !== null && state.asOf === now && store.settled() === null && repo.maxId() === state.seenId) return now;
        if (round >= MAX_ROUNDS && state !== null && now >= state.asOf) return state.asOf;
        running = step(now).finally(() => (running = null));
        await running;
      }
    },

    /** The first `limit` wallets by `sort` (descending, ties by wallet), as of the last refresh. */
    top: (sort: TraderSort, limit: number): Tally[] => state?.sets[sort].first(limit) ?? [],

    /** Wallets on the board. */
    size: (): number => state?.tallies.size ?? 0,

    stats: (): Readonly<BoardStats> => ({ ...stats }),
  };
}

/**
 * Boards kept at once. Each holds one entry per wallet of its window (about 230 bytes, measured:
 * 65 MB for 285,000 wallets), so the least recently read board is dropped beyond this; reading it
 * again builds it again.
 */
export const MAX_BOARDS = 6;

/** The boards of one app, made when a token's window is first asked for. */
export function createTraderBoards(store: Store, repo: TraderBoardRepo) {
  const boards = new Map<string, { address: string; board: TraderBoard }>();
  return {
    /** The board of the token's window; a token id now naming another address gets a new one. */
    get(tokenId: number, address: string, seconds: number): TraderBoard {
      const key = `${tokenId}:${seconds}`;
      let e = boards.get(key);
      boards.delete(key);
      if (e === undefined || e.address !== address) e = { address, board: createTraderBoard(store, repo, tokenId, seconds) };
      boards.set(key, e);
      for (const k of boards.keys()) {
        if (boards.size <= MAX_BOARDS) break;
        boards.delete(k);
      }
      return e.board;
    },
  };
}

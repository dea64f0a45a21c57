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
 * five minutes, or too many moved trades) builds the board from the window's trades in pages of
 * PAGE rows and sorts its rankings by a merge sort in slices, all yielding to the event loop; an
 * update reads in pages too and then applies its changes (at most MAX_MOVED trades) in one
 * synchronous step, so a reader never sees half of one.
 *
 * Memory: figures live column by column in typed arrays (src/domain/trader-table.ts) and wallet
 * names once per token, shared by its boards; the registry counts every board's bytes and drops
 * the least recently read ones beyond BOARD_BUDGET_BYTES.
 */
import type { StoreHandle } from '../store/port/handle.js';
import type { TraderBoardRepo, BoardTrade } from '../store/port/repos.js';
import type { Async } from '../store/port/async.js';
import { RankedSet, sortInSlices } from '../domain/ranked-set.js';
import { TallyTable, WalletNames } from '../domain/trader-table.js';
import type { Tally, TraderSort } from '../domain/trader-tally.js';

/**
 * Rows read between two yields to the event loop: 1,000 trades are read, interned and added in a
 * few milliseconds (docs/api.md, Top traders: what a request costs).
 */
export const PAGE = 1000;
/** Seconds the clock may move before the board is rebuilt rather than brought forward. */
const REBUILD_AFTER = 300;
/**
 * Moved trades one update may apply in its synchronous step (each costs up to six placements in
 * the rankings, about a microsecond each); more rebuilds instead, in slices.
 */
export const MAX_MOVED = 2000;
/** Refresh rounds one caller waits for while writes keep coming; then it answers. */
const MAX_ROUNDS = 3;
/** Items sorted or merged between two yields while a board's rankings are built. */
const SORT_RUN = 2048;

const SORTS: readonly TraderSort[] = ['volume', 'trades', 'net'];
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * `removalSeq`: the removal log entry (docs/indexer.md, Reorgs) the figures are exact after, or -1
 * when a removal committed while the board read (it may or may not hold that trade: rebuilt).
 */
type State = { table: TallyTable; sets: Record<TraderSort, RankedSet<number>>; asOf: number; seenId: number; removalSeq: number };
/** A trade to apply: the row and +1 (entered) or -1 (left). */
type Move = { trade: BoardTrade; sign: 1 | -1 };

/** What a board has done so far, for tests that pin its cost. */
export type BoardStats = { rowsRead: number; builds: number; updates: number; pages: number };

export type TraderBoard = ReturnType<typeof createTraderBoard>;

export type BoardOptions = {
  /** The token's wallet names, shared by its boards (a board of its own when absent). */
  names?: WalletNames;
  /** Called after each build or update, when the board's size may have changed. */
  onResize?: () => void;
};

/** The board's reads: the async trader-board repo of src/store/port/repos.ts (either engine). */
type BoardRepo = Async<TraderBoardRepo>;

export function createTraderBoard(store: StoreHandle, repo: BoardRepo, tokenId: number, seconds: number, opts: BoardOptions = {}) {
  const names = opts.names ?? new WalletNames();
  let state: State | null = null;
  let running: Promise<void> | null = null;
  /** The store's change count when the board was last known current (as the window board's `heard`). */
  let heard = -1;
  const stats: BoardStats = { rowsRead: 0, builds: 0, updates: 0, pages: 0 };

  /** Reads pages of trades by time in (from, to] with id <= maxId into `sink`; false when `sink` asked to stop. */
  async function readByTime(from: number, to: number, maxId: number, sink: (page: BoardTrade[]) => boolean): Promise<boolean> {
    let afterTime = from;
    let afterId = Infinity;
    for (;;) {
      const page = await repo.pageByTime(tokenId, afterTime, afterId, to, maxId, PAGE);
      stats.rowsRead += page.length;
      stats.pages++;
      if (!sink(page)) return false;
      if (page.length < PAGE) return true;
      [afterId, afterTime] = page[page.length - 1]!;
      await yieldToLoop();
    }
  }

  async function build(now: number, maxId: number, removalSeq: number): Promise<void> {
    stats.builds++;
    const table = new TallyTable(names);
    await readByTime(now - seconds, now, maxId, (page) => {
      for (const [, , wallet, isBuy, vol] of page) table.apply(table.ensure(names.id(wallet)), isBuy === 1, vol, 1);
      return true;
    });
    const rows: number[] = [];
    for (let w = 0; w < names.size; w++) {
      const r = table.rowOf(w);
      if (r >= 0) rows.push(r);
    }
    const ranked = table.rankedOrders(await names.ranks(yieldToLoop));
    const sets = {} as State['sets'];
    for (const s of SORTS) sets[s] = RankedSet.fromSorted(table.orders[s], await sortInSlices(rows, ranked[s], yieldToLoop, SORT_RUN));
    state = { table, sets, asOf: now, seenId: maxId, removalSeq };
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
      const page = await repo.pageById(tokenId, after, maxId, PAGE);
      stats.rowsRead += page.length;
      stats.pages++;
      for (const trade of page) if (trade[1] > now - seconds && trade[1] <= now) moves.push({ trade, sign: 1 });
      if (moves.length > MAX_MOVED) return null;
      if (page.length < PAGE) return moves;
      after = page[page.length - 1]![0];
      await yieldToLoop();
    }
  }

  /** Applies `moves` to `s` in one synchronous step: each touched wallet leaves the rankings once and comes back once. */
  function apply(s: State, moves: readonly Move[], now: number, maxId: number): void {
    const { table, sets } = s;
    const touched = new Set<number>();
    for (const { trade, sign } of moves) {
      const [, , wallet, isBuy, vol] = trade;
      const w = names.id(wallet);
      let row = table.rowOf(w);
      if (row < 0) touched.add((row = table.ensure(w)));
      else if (!touched.has(row)) {
        for (const k of SORTS) sets[k].delete(row);
        touched.add(row);
      }
      table.apply(row, isBuy === 1, vol, sign);
    }
    for (const row of touched) {
      if (table.trades(row) === 0) table.release(row);
      else for (const k of SORTS) sets[k].add(row);
    }
    s.asOf = now;
    s.seenId = maxId;
  }

  /**
   * The trades of the board's figures that a retraction removed after its last step (the removal
   * log holds them, with what the board counted): each leaves as a trade leaving the window
   * would. Null when there are too many to apply in one step.
   */
  async function removedMoves(s: State, upToSeq: number): Promise<Move[] | null> {
    if (upToSeq <= s.removalSeq) return [];
    const rows = await repo.removedAfter(tokenId, s.removalSeq, MAX_MOVED + 1);
    stats.rowsRead += rows.length;
    if (rows.length > MAX_MOVED) return null;
    const moves: Move[] = [];
    for (const [seq, id, blockTime, wallet, isBuy, vol] of rows) {
      // Entries after upToSeq committed after this step began: the next step takes them.
      if (seq <= upToSeq && id <= s.seenId && blockTime > s.asOf - seconds && blockTime <= s.asOf)
        moves.push({ trade: [id, blockTime, wallet, isBuy, vol], sign: -1 });
    }
    return moves;
  }

  async function step(now: number): Promise<void> {
    // A sliced ingest of this process shares the connection: wait for its commit, then take the
    // newest id; rows above it (a later write, committed or not) are left for the next step.
    for (let p = store.settled(); p !== null; p = store.settled()) await p;
    // Taken before any read: a change heard after this point makes the board not current.
    const version = store.version();
    heard = -1;
    // The removal log's place first: a removal after it is taken out by the next step.
    const removalSeq = await repo.lastRemovalSeq();
    const maxId = await repo.maxId();
    await stepTo(now, maxId, removalSeq);
    // A removal that committed while this step read may or may not be in what it read.
    if (state !== null && (await repo.lastRemovalSeq()) !== removalSeq) state.removalSeq = -1;
    heard = version;
  }

  async function stepTo(now: number, maxId: number, removalSeq: number): Promise<void> {
    const s = state;
    if (s === null || now < s.asOf || now - s.asOf > REBUILD_AFTER || maxId < s.seenId || s.removalSeq < 0) return build(now, maxId, removalSeq);
    const gone = await removedMoves(s, removalSeq);
    const moves = gone === null ? null : await moved(s, now, maxId);
    if (gone === null || moves === null) return build(now, maxId, removalSeq);
    stats.updates++;
    apply(s, [...gone, ...moves], now, maxId);
    s.removalSeq = removalSeq;
  }

  async function stepAndReport(now: number): Promise<void> {
    await step(now);
    opts.onResize?.();
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
        if (state !== null && state.asOf === now && store.settled() === null) {
          // Nothing heard since the board was last known current: no round trip at all (the
          // notices are what the response cache trusts too, docs/architecture.md, Caches).
          const version = store.version();
          if (version === heard && state.removalSeq >= 0) return now;
          // Together: one round trip's wait on PostgreSQL instead of two in a row, on every request
          // to a current board (the broad ingest's profile, docs/operations.md). Either read sees
          // every commit made before the request began, as one after the other did.
          const [maxId, removalSeq] = await Promise.all([repo.maxId(), repo.lastRemovalSeq()]);
          // A step another caller began while this one read is waited for by the next round.
          if (running !== null) continue;
          if (state !== null && state.asOf === now && maxId === state.seenId && removalSeq === state.removalSeq) {
            heard = version;
            return now;
          }
        }
        if (round >= MAX_ROUNDS && state !== null && now >= state.asOf) return state.asOf;
        running = stepAndReport(now).finally(() => (running = null));
        await running;
      }
    },

    /** The first `limit` wallets by `sort` (descending, ties by wallet), as of the last refresh. */
    top(sort: TraderSort, limit: number): Tally[] {
      const s = state;
      return s === null ? [] : s.sets[sort].first(limit).map((row) => s.table.tally(row));
    },

    /**
     * What the board's figures are exact for, as a string (`asOf.seenId.removalSeq`): two reads
     * with the same version see the same figures, so an answer made from `top` can be cached under
     * it. Null while there is no board or a removal may or may not be in it (it is rebuilt next).
     */
    version(): string | null {
      const s = state;
      return s === null || s.removalSeq < 0 ? null : `${s.asOf}.${s.seenId}.${s.removalSeq}`;
    },

    /** Wallets on the board. */
    size: (): number => state?.table.size ?? 0,

    /** Bytes the board holds (its table and rankings; the shared names are counted by the registry). */
    bytes(): number {
      const s = state;
      return s === null ? 0 : s.table.bytes() + SORTS.reduce((sum, k) => sum + s.sets[k].bytes(), 0);
    },

    stats: (): Readonly<BoardStats> => ({ ...stats }),
  };
}

/** Boards kept at once, however small (each costs a few hundred bytes even when empty). */
export const MAX_BOARDS = 32;

/**
 * Bytes all boards may hold together (tables, rankings and the tokens' wallet names, as counted by
 * their bytes()): about 80 bytes a wallet a board and 110 a wallet a token, so the three long
 * windows of a token with 285,000 wallets take about 100 MB. Beyond it the least recently read
 * boards are dropped (the one just read is always kept); reading one again builds it again.
 */
export const BOARD_BUDGET_BYTES = 128 * 1024 * 1024;

/** What the registry holds, for tests and the benchmark. */
export type BoardsStats = { boards: number; bytes: number; evicted: number };

type Entry = { address: string; names: WalletNames; board: TraderBoard };

/** The boards of one app, made when a token's window is first asked for. */
export function createTraderBoards(store: StoreHandle, repo: BoardRepo, opts: { budgetBytes?: number; maxBoards?: number } = {}) {
  const budget = opts.budgetBytes ?? BOARD_BUDGET_BYTES;
  const maxBoards = opts.maxBoards ?? MAX_BOARDS;
  const boards = new Map<string, Entry>();
  let evicted = 0;

  /** Bytes of every board plus each token's names once. */
  function bytes(): number {
    const names = new Set<WalletNames>();
    let sum = 0;
    for (const e of boards.values()) {
      sum += e.board.bytes();
      names.add(e.names);
    }
    for (const n of names) sum += n.bytes();
    return sum;
  }

  /** Drops the least recently read boards while over the count or the byte budget; never the newest. */
  function trim(): void {
    while (boards.size > 1 && (boards.size > maxBoards || bytes() > budget)) {
      boards.delete(boards.keys().next().value!);
      evicted++;
    }
  }

  /** The names of the token, shared with its other boards (new when it has none). */
  function namesOf(tokenId: number, address: string): WalletNames {
    for (const [key, e] of boards) if (key.startsWith(`${tokenId}:`) && e.address === address) return e.names;
    return new WalletNames();
  }

  return {
    /** The board of the token's window; a token id now naming another address gets a new one. */
    get(tokenId: number, address: string, seconds: number): TraderBoard {
      const key = `${tokenId}:${seconds}`;
      let e = boards.get(key);
      boards.delete(key);
      if (e === undefined || e.address !== address) {
        const names = namesOf(tokenId, address);
        e = { address, names, board: createTraderBoard(store, repo, tokenId, seconds, { names, onResize: trim }) };
      }
      boards.set(key, e);
      trim();
      return e.board;
    },

    stats: (): BoardsStats => ({ boards: boards.size, bytes: bytes(), evicted }),
  };
}

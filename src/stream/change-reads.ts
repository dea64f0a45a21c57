/**
 * The fan-out's reads, made ahead (docs/architecture.md, Live stream: reads before the fan-out).
 * The store answers promises (either engine), but a change must reach every subscription in one
 * synchronous step, so nothing subscribes, and no other change is fanned out, half-way through
 * it. The hub therefore reads first what the fan-out of a change will ask for (src/stream/fanout.ts:
 * the newest trade id, each followed token's new trades and the ends of their transactions, the
 * newest bar of each followed resolution and the bar each subscription last saw, prices and
 * overviews), and the fan-out reads those answers through this object, a `StreamSource`.
 *
 * A change's turn also reads the store's removal log (src/store/port/retract.ts) after the last
 * entry it saw, whatever the change says it touched: a retraction on this instance or another one
 * shows there, and the tokens that lost trades are fanned out with the change (`removed`, a bars
 * `reset` with reason `reorg`, their new prices and overviews).
 *
 * Prices and overviews stay until the token's next change: the fan-out sends them from a timer, at
 * most once a second, with the answer read at the change that scheduled it (a later change reads
 * them again). A question the hub did not read ahead for is a bug, and throws.
 */
import type { Bar } from '../domain/candles.js';
import type { Resolution } from '../domain/resolution.js';
import type { TradeJson } from '../store/port/repos.js';
import type { RemovalLogEntry } from '../store/port/retract.js';
import type { Fanout, TokenState } from './fanout.js';
import type { PriceState, StreamReads, StreamSource, TokenFields } from './types.js';

/** Trades read per page while reading ahead (as the fan-out pages them). */
const READ_PAGE = 10_000;
/** Rounds of reading a change's trades and bars until the newest trade id stands still across them. */
const MAX_ROUNDS = 4;
const NONE: readonly RemovalLogEntry[] = [];

/** What was read of one token for the fan-out. */
type TokenReads = {
  /** New trades of the token, ascending by id, with id in (from, read]. */
  trades: TradeJson[];
  from: number;
  read: number;
  /** Bars by `${res.key}|${t}` ('newest' for the newest bar). */
  bars: Map<string, Bar | null>;
  /** The circulating supply, read with the bars when a market-cap subscription follows the token. */
  supply: number | null;
};

export class ChangeReads implements StreamSource {
  /** The end of the last turn queued: reads ahead and the fan-out of one turn never overlap another's. */
  private turn: Promise<void> = Promise.resolve();
  private maxId = 0;
  /** Trades up to this id may be in the bars read for the change (the newest id read after them). */
  private through = 0;
  private ends: number[] = [];
  private readonly byToken = new Map<number, TokenReads>();
  private readonly prices = new Map<number, PriceState | null>();
  private readonly overviews = new Map<number, unknown>();
  /** The last removal log entry read; null until a subscription starts (nobody to tell before). */
  private removalSeq: number | null = null;
  /** The removal log entries of this turn, by token. */
  private readonly removedBy = new Map<number, RemovalLogEntry[]>();

  constructor(private readonly reads: StreamReads) {}

  /** Runs `op` after every turn queued before it (a change's fan-out, a subscription's start). */
  inTurn(op: () => Promise<void>): Promise<void> {
    const p = this.turn.then(op);
    this.turn = p.catch(() => {});
    return p;
  }

  /** Resolves once every turn queued so far has run. */
  idle(): Promise<void> {
    return this.turn;
  }

  settled(): Promise<void> | null {
    return this.reads.settled();
  }

  fields(key: string): TokenFields {
    return this.reads.fields?.(key) ?? { address: key };
  }

  maxTradeId(): number {
    return this.maxId;
  }

  barsThrough(): number {
    return this.through;
  }

  tradesAfter(tokenId: number, afterId: number, upTo: number, limit: number): TradeJson[] {
    const r = this.byToken.get(tokenId);
    if (r === undefined || afterId < r.from || upTo > this.maxId) throw new Error(`stream: trades of token ${tokenId} after ${afterId} were not read ahead`);
    const out: TradeJson[] = [];
    for (const t of r.trades) {
      if (t.id <= afterId) continue;
      if (t.id > upTo || out.length >= limit) break;
      out.push(t);
    }
    return out;
  }

  commitEnds(from: number, to: number): number[] {
    return this.ends.filter((e) => e >= from && e < to);
  }

  barAt(tokenId: number, res: Resolution, t: number): Bar | null {
    return this.bar(tokenId, `${res.key}|${t}`);
  }

  newestBar(tokenId: number, res: Resolution): Bar | null {
    return this.bar(tokenId, `${res.key}|newest`);
  }

  price(tokenId: number): PriceState | null {
    if (!this.prices.has(tokenId)) throw new Error(`stream: the price of token ${tokenId} was not read ahead`);
    return this.prices.get(tokenId) ?? null;
  }

  overview(tokenId: number): unknown {
    if (!this.overviews.has(tokenId)) throw new Error(`stream: the overview of token ${tokenId} was not read ahead`);
    return this.overviews.get(tokenId);
  }

  removed(tokenId: number): readonly RemovalLogEntry[] {
    return this.removedBy.get(tokenId) ?? NONE;
  }

  supply(tokenId: number): number | null {
    const r = this.byToken.get(tokenId);
    if (r === undefined) throw new Error(`stream: the supply of token ${tokenId} was not read ahead`);
    return r.supply;
  }

  private bar(tokenId: number, key: string): Bar | null {
    const found = this.byToken.get(tokenId)?.bars.get(key);
    if (found === undefined) throw new Error(`stream: bar ${key} of token ${tokenId} was not read ahead`);
    return found;
  }

  /** Waits until no write of this process is open (its uncommitted rows are visible on SQLite). */
  private async quiet(): Promise<void> {
    for (let p = this.reads.settled(); p !== null; p = this.reads.settled()) await p;
  }

  /**
   * Reads what `fanout.changed()` will ask for `states`, the followed tokens of a change whose
   * newest trade id is `upTo` (read when the change was heard). The newest id never goes back:
   * trade ids are given in commit order, so every trade up to one already seen is committed.
   *
   * The bars are read together with the trades they hold: later commits may have landed since the
   * change was heard, and the bars read now hold their trades too. So the newest trade id is read
   * again after the bars; when it moved, the trades up to it are read as well (they go out with
   * this change, each transaction its own message) and the bars again, until the id stands still
   * across the bar reads: then the bars hold exactly the trades handed out. Were those later
   * trades left to their own change, one that starts a new bar would already be in the newest bar
   * sent, and its trades in the older bar would look like a backfill.
   */
  async forChange(states: readonly TokenState[], upTo: Promise<number>): Promise<void> {
    this.byToken.clear();
    this.ends = [];
    this.maxId = Math.max(this.maxId, await upTo);
    this.through = this.maxId;
    if (states.length === 0) return;
    for (let round = 1; ; round++) {
      await this.quiet();
      const bound = this.maxId;
      await Promise.all(states.map((t) => this.readToken(t, bound)));
      const after = await this.reads.maxTradeId();
      // A sliced write that opened meanwhile shows its rows to this process: read again after it.
      if (this.reads.settled() !== null) continue;
      if (after <= bound || round >= MAX_ROUNDS) {
        // Out of rounds (commits landing faster than the bars are read): the bars may hold trades
        // up to `after`; the fan-out does not take those for a backfill when they come.
        this.through = Math.max(bound, after);
        break;
      }
      this.maxId = after;
    }
    let lo = Infinity;
    let hi = -Infinity;
    for (const r of this.byToken.values()) {
      if (r.trades.length === 0) continue;
      lo = Math.min(lo, r.trades[0]!.id);
      hi = Math.max(hi, r.trades[r.trades.length - 1]!.id);
    }
    if (lo !== Infinity) this.ends = await this.reads.commitEnds(lo, hi + 1);
  }

  /** Reads a token's new trades up to `upTo` (after those read in an earlier round) and afresh its price, overview and, when trades came, bars. */
  private async readToken(t: TokenState, upTo: number): Promise<void> {
    let r = this.byToken.get(t.id);
    if (r === undefined) this.byToken.set(t.id, (r = { trades: [], from: t.lastTradeId, read: t.lastTradeId, bars: new Map(), supply: null }));
    const jobs: Promise<void>[] = [];
    if (t.prices.size > 0) jobs.push(this.readPrice(t.id));
    if (t.overview.size > 0) jobs.push(this.readOverview(t.id));
    if (t.bars.size > 0 || t.trades.size > 0) {
      for (let after = r.read; after < upTo;) {
        const page = await this.reads.tradesAfter(t.id, after, upTo, READ_PAGE);
        r.trades.push(...page);
        if (page.length < READ_PAGE) break;
        after = page[page.length - 1]!.id;
      }
      r.read = upTo;
      // Bars are asked for only when trades came or went; then the newest bar, and the bar each group last saw.
      if (r.trades.length > 0 || this.removedBy.has(t.id)) {
        r.bars.clear();
        for (const subs of t.bars.values()) jobs.push(this.readBars(t.id, r, subs));
      }
      // The supply at every change of a token followed in market cap: a token record may change it without a trade.
      const reads = r;
      if ([...t.bars.keys()].some((k) => k.endsWith('|mcap'))) jobs.push(this.reads.supply(t.id).then((s) => void (reads.supply = s)));
    }
    await Promise.all(jobs);
  }

  private async readBars(tokenId: number, r: TokenReads, subs: ReadonlySet<{ res: Resolution; lastT: number | null }>): Promise<void> {
    const first = subs.values().next().value;
    if (first === undefined) return;
    const res = first.res;
    const lastSeen = new Set<number>();
    for (const s of subs) if (s.lastT !== null) lastSeen.add(s.lastT);
    const [newest, ...seen] = await Promise.all([this.reads.newestBar(tokenId, res), ...[...lastSeen].map((t) => this.reads.barAt(tokenId, res, t))]);
    r.bars.set(`${res.key}|newest`, newest ?? null);
    [...lastSeen].forEach((t, i) => r.bars.set(`${res.key}|${t}`, seen[i] ?? null));
  }

  /**
   * Reads the newest trade id (a new token state starts there). `first`: no token is followed yet,
   * so no subscription is owed the removals logged so far: the log is read from its newest entry on.
   */
  async forSubscribe(first = false): Promise<void> {
    await this.quiet();
    const [maxId, seq] = await Promise.all([this.reads.maxTradeId(), first || this.removalSeq === null ? this.reads.lastRemovalSeq() : null]);
    this.maxId = Math.max(this.maxId, maxId);
    if (seq !== null) this.removalSeq = seq;
  }

  /**
   * The followed tokens that lost trades, and those a retraction deleted whole: whether their
   * address still names them. A deleted one is `gone` until its address names a token again (the
   * new branch brought it back, under a new id): then its state and subscriptions move there, its
   * removals with them, so they still hear what went. The ids moved to, for the change to read.
   */
  private async followAddresses(fanout: Fanout): Promise<number[]> {
    const check = [...fanout.tokens.values()].filter((t) => t.gone || this.removedBy.has(t.id));
    if (check.length === 0) return [];
    const found = await Promise.all(check.map((t) => this.reads.resolve(t.address)));
    const moved: number[] = [];
    check.forEach((t, i) => {
      const now = found[i] ?? null;
      if (now === null || now.address !== t.address) t.gone = true;
      else if (now.id !== t.id) {
        const from = t.id;
        const removed = this.removedBy.get(from);
        if (removed !== undefined) {
          this.removedBy.delete(from);
          this.removedBy.set(now.id, [...removed, ...(this.removedBy.get(now.id) ?? [])]);
        }
        fanout.rekey(t, now.id);
        moved.push(now.id);
      }
    });
    return moved;
  }

  /** Reads the removal log after the last entry read, by token (before the trades and bars: see fanOut). */
  private async readRemovals(): Promise<void> {
    this.removedBy.clear();
    if (this.removalSeq === null) return;
    for (;;) {
      const page = await this.reads.removalsAfter(this.removalSeq, READ_PAGE);
      for (const e of page) {
        const list = this.removedBy.get(e.tokenId);
        if (list === undefined) this.removedBy.set(e.tokenId, [e]);
        else list.push(e);
      }
      if (page.length > 0) this.removalSeq = page[page.length - 1]!.seq;
      if (page.length < READ_PAGE) return;
    }
  }

  async readPrice(tokenId: number): Promise<void> {
    this.prices.set(tokenId, await this.reads.price(tokenId));
  }

  async readOverview(tokenId: number): Promise<void> {
    this.overviews.set(tokenId, await this.reads.overview(tokenId));
  }

  /**
   * Reads ahead for the change of `tokens`, then fans it out (through `batch`) in one synchronous
   * step. The removal log is read first: a trade it names is gone from every read made after it,
   * so no trade read for this change is also told removed; a retraction that commits after it is
   * in the bars read, and its own change tells it (reset) next.
   */
  async fanOut(fanout: Fanout, tokens: ReadonlySet<number> | 'all', upTo: Promise<number>, batch: (run: () => void) => void): Promise<void> {
    await this.readRemovals();
    const moved = await this.followAddresses(fanout);
    let ids = tokens;
    if (ids !== 'all' && (this.removedBy.size > 0 || moved.length > 0)) {
      // The log may name tokens the change did not (changes joined, a notice from another instance).
      const more = new Set(ids);
      for (const id of this.removedBy.keys()) if (fanout.tokens.has(id)) more.add(id);
      for (const id of moved) more.add(id);
      ids = more;
    }
    const states = ids === 'all' ? [...fanout.tokens.values()] : [...ids].flatMap((id) => fanout.tokens.get(id) ?? []);
    await this.forChange(states, upTo);
    try {
      const changed = ids;
      batch(() => fanout.changed(changed));
    } finally {
      // Prices and overviews of tokens nobody follows any more are forgotten.
      for (const id of this.prices.keys()) if (!fanout.tokens.has(id)) this.prices.delete(id);
      for (const id of this.overviews.keys()) if (!fanout.tokens.has(id)) this.overviews.delete(id);
    }
  }
}

/**
 * Fan-out of store changes to subscriptions (docs/api.md, Live stream). The work of a change is done
 * once per token and resolution, not per subscriber: new trades are read once (`id >` the last id
 * seen for the token), bars once per resolution, prices and overview once per token, each message
 * body serialised once and only prefixed with each subscription's id.
 */
import { bucketStart } from '../domain/resolution.js';
import type { Bar } from '../domain/candles.js';
import type { TradeJson } from '../store/port/repos.js';
import type { RemovalLogEntry } from '../store/port/retract.js';
import type { Framer, StreamSource } from './types.js';
import { Encoded, barJson, overviewBody, priceBody } from './messages.js';
import type { BarSub, OverviewSub, PriceSub, TradeSub } from './connection.js';
import { mcapBar } from '../domain/chart-metric.js';
import type { StreamMetrics } from './metrics.js';

/** Trades in one message. */
export const TRADES_PER_MESSAGE = 1000;
/** Prices and overview of a token are sent at most this often. */
const THROTTLE_MS = 1000;
const READ_PAGE = 10_000;

/** The messages of a group of bar subscriptions: op, coalescing key, body. */
type Plan = [op: string, key: string, body: Encoded][];

/** A token's new trades of one change: the lowest id, their earliest time, the pages read. */
type Fresh = { firstId: number; minTime: number; pages: readonly TradeJson[][] };

/** The earliest time of the trades after `id` (Infinity when none). */
function minTimeAfter(pages: readonly TradeJson[][], id: number): number {
  let min = Infinity;
  for (const page of pages) for (const tr of page) if (tr.id > id && tr.blockTime < min) min = tr.blockTime;
  return min;
}

type Throttle = { lastMs: number; timer: NodeJS.Timeout | null; lastJson: string | null };

export type TokenState = {
  id: number;
  address: string;
  /**
   * Deleted whole by a retraction (first seen in orphaned blocks): its subscriptions stay, following
   * the address, until the chain brings a token of that address back under a new id (see rekey).
   */
  gone: boolean;
  /** Every trade of the token with id <= this has been handed to its subscriptions. */
  lastTradeId: number;
  bars: Map<string, Set<BarSub>>;
  trades: Set<TradeSub>;
  prices: Set<PriceSub>;
  overview: Set<OverviewSub>;
  price: Throttle;
  view: Throttle;
};

export class Fanout {
  readonly tokens = new Map<number, TokenState>();
  private delays = 0;

  constructor(
    private readonly source: StreamSource,
    private readonly metrics: StreamMetrics,
    private readonly frame: Framer,
    private readonly nowMs: () => number,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  state(id: number, address: string): TokenState {
    let t = this.tokens.get(id);
    if (t === undefined) {
      const throttle = (): Throttle => ({ lastMs: -Infinity, timer: null, lastJson: null });
      t = {
        id,
        address,
        gone: false,
        lastTradeId: this.source.maxTradeId(),
        bars: new Map(),
        trades: new Set(),
        prices: new Set(),
        overview: new Set(),
        price: throttle(),
        view: throttle(),
      };
      this.tokens.set(id, t);
    }
    return t;
  }

  /**
   * Moves a token's state to `id`, the token its address names now (a retraction deleted the one it
   * followed, and the new branch brought the address back), with every subscription: their links
   * name the new id, so they unsubscribe from it. Merged into the state of `id` when someone follows
   * that already.
   */
  rekey(t: TokenState, id: number): void {
    if (this.tokens.get(t.id) === t) this.tokens.delete(t.id);
    const relink = (link: { id: number; address: string }) => {
      if (link.address === t.address) link.id = id;
    };
    for (const subs of t.bars.values()) for (const s of subs) relink(s.token);
    for (const s of t.trades) relink(s.token);
    for (const s of t.overview) relink(s.token);
    for (const s of t.prices) s.tokens.forEach(relink);
    const into = this.tokens.get(id);
    if (into === undefined) {
      t.id = id;
      t.gone = false;
      this.tokens.set(id, t);
      return;
    }
    for (const [key, subs] of t.bars) {
      const group = into.bars.get(key);
      if (group === undefined) into.bars.set(key, subs);
      else for (const s of subs) group.add(s);
    }
    for (const s of t.trades) into.trades.add(s);
    for (const s of t.prices) into.prices.add(s);
    for (const s of t.overview) into.overview.add(s);
    if (t.price.timer) clearTimeout(t.price.timer);
    if (t.view.timer) clearTimeout(t.view.timer);
  }

  /** Forgets a token nobody follows any more. */
  release(t: TokenState): void {
    if (t.bars.size > 0 || t.trades.size > 0 || t.prices.size > 0 || t.overview.size > 0) return;
    if (t.price.timer) clearTimeout(t.price.timer);
    if (t.view.timer) clearTimeout(t.view.timer);
    this.tokens.delete(t.id);
  }

  /**
   * Handles one commit notification: the tokens it touched, or every followed token when unknown
   * (commits of other processes, seen together). Trades go out one message per ingest
   * transaction (split at the ends the ingest recorded); bars once, in their state after all.
   * A token that lost trades to a retraction (docs/api.md, Live stream: reorgs) tells its trade
   * subscriptions which (`removed`, before the new trades), and its bar subscriptions `reset`
   * with reason `reorg` and the newest bar as it is now, which every later bar builds on.
   */
  changed(ids: ReadonlySet<number> | 'all'): void {
    const states = ids === 'all' ? [...this.tokens.values()] : [...ids].flatMap((id) => this.tokens.get(id) ?? []);
    const upTo = states.length > 0 ? this.source.maxTradeId() : 0;
    for (const t of states) {
      const removed = this.source.removed(t.id);
      if (t.bars.size > 0 || t.trades.size > 0) {
        if (removed.length > 0 && t.trades.size > 0) this.sendRemoved(t, removed);
        let minTime = Infinity;
        const pages: TradeJson[][] = [];
        // A transaction cut by the end of a page is carried into the next page.
        let carried: TradeJson[] = [];
        for (;;) {
          const page = this.source.tradesAfter(t.id, t.lastTradeId, upTo, READ_PAGE);
          if (page.length > 0) t.lastTradeId = page[page.length - 1]!.id;
          for (const tr of page) if (tr.blockTime < minTime) minTime = tr.blockTime;
          pages.push(page);
          const full = page.length === READ_PAGE;
          const groups = this.byTransaction(carried.length === 0 ? page : carried.concat(page));
          carried = full ? (groups.pop() ?? []) : [];
          if (t.trades.size > 0) for (const g of groups) this.sendTrades(t, g);
          if (!full) break;
        }
        if (t.trades.size > 0) this.delay();
        if (t.bars.size > 0) this.supplyChanged(t);
        if (removed.length > 0) {
          for (const subs of t.bars.values()) {
            this.reorgBars(t, subs);
            this.delay();
          }
        } else if (minTime !== Infinity) {
          const fresh: Fresh = { firstId: pages[0]![0]!.id, minTime, pages };
          for (const subs of t.bars.values()) {
            this.deliverBars(t, subs, fresh);
            this.delay();
          }
        }
      } else {
        t.lastTradeId = upTo;
      }
      if (t.prices.size > 0) this.throttled(t, t.price, () => this.sendPrices(t));
      if (t.overview.size > 0) this.throttled(t, t.view, () => this.sendOverview(t));
    }
  }

  /** Trades (ascending by id) split into the ingest transactions that wrote them. */
  private byTransaction(trades: TradeJson[]): TradeJson[][] {
    if (trades.length === 0) return [];
    const ends = this.source.commitEnds(trades[0]!.id, trades[trades.length - 1]!.id);
    if (ends.length === 0) return [trades];
    const groups: TradeJson[][] = [];
    let start = 0;
    let e = 0;
    for (let i = 0; i < trades.length && e < ends.length; i++) {
      if (trades[i]!.id > ends[e]!) {
        if (i > start) groups.push(trades.slice(start, i));
        start = i;
        while (e < ends.length && trades[i]!.id > ends[e]!) e++;
      }
    }
    groups.push(trades.slice(start));
    return groups;
  }

  /** One transaction's trades of a token to its trade subscriptions, ascending by (blockTime, id). */
  private sendTrades(t: TokenState, trades: TradeJson[]): void {
    const ordered = [...trades].sort((a, b) => a.blockTime - b.blockTime || a.id - b.id);
    const bodies: Encoded[] = [];
    for (let i = 0; i < ordered.length; i += TRADES_PER_MESSAGE) {
      bodies.push(new Encoded(this.frame, '{"op":"trades",', `"trades":${JSON.stringify(ordered.slice(i, i + TRADES_PER_MESSAGE))}}`));
    }
    for (const sub of t.trades) {
      if (sub.stopped) continue;
      for (const body of bodies) {
        if (!sub.conn.tradesFit()) break;
        sub.conn.send('trades', body.for(sub.id));
      }
    }
  }

  /**
   * The trades a retraction took out, to the token's trade subscriptions, ascending by id: to each
   * those it may have been sent, after where it began (`from`) and up to the last id handed out.
   * A trade removed before it was sent is never named; one removed while on its way may be, and
   * a client ignores an id it does not hold. Subscriptions that began at the same id share bodies.
   */
  private sendRemoved(t: TokenState, removed: readonly RemovalLogEntry[]): void {
    const sorted = removed.filter((e) => e.tradeId <= t.lastTradeId).sort((a, b) => a.tradeId - b.tradeId);
    if (sorted.length === 0) return;
    const byFrom = new Map<number, Encoded[]>();
    for (const sub of t.trades) {
      if (sub.stopped) continue;
      let bodies = byFrom.get(sub.from);
      if (bodies === undefined) {
        const gone = sorted.filter((e) => e.tradeId > sub.from).map((e) => ({ id: e.tradeId, signature: e.signature, index: e.index }));
        bodies = [];
        for (let i = 0; i < gone.length; i += TRADES_PER_MESSAGE) {
          bodies.push(new Encoded(this.frame, '{"op":"removed",', `"trades":${JSON.stringify(gone.slice(i, i + TRADES_PER_MESSAGE))}}`));
        }
        byFrom.set(sub.from, bodies);
      }
      for (const body of bodies) {
        if (!sub.conn.tradesFit()) break;
        sub.conn.send('removed', body.for(sub.id));
      }
    }
  }

  /**
   * Bars of one resolution after a retraction: any bar sent may have changed or be gone, so every
   * subscription gets `reset` with reason `reorg` (the client refetches history) and then the
   * newest bar as it is now (none when the token has no trade left), from which it goes on.
   */
  private reorgBars(t: TokenState, subs: Set<BarSub>): void {
    const first = subs.values().next().value;
    if (first === undefined) return;
    const newest = this.barOf(t, first, this.source.newestBar(t.id, first.res));
    const through = this.source.barsThrough();
    const reset = new Encoded(this.frame, '{"op":"reset",', '"reason":"reorg"}');
    const newestJson = newest === null ? null : barJson(newest);
    const newestMsg = newestJson === null ? null : new Encoded(this.frame, '{"op":"bar",', `"bar":${newestJson},"final":false}`);
    for (const s of subs) {
      this.metrics.reset('reorg');
      s.conn.sendState(s, 'reset', 'reset', reset.for(s.id));
      if (newest !== null && newestMsg !== null) s.conn.sendState(s, 'bar', String(newest.t), newestMsg.for(s.id));
      s.lastT = newest?.t ?? null;
      s.lastJson = newestJson;
      s.seenTo = through;
    }
  }

  /**
   * Notes a channel of a token that a change sent on: its delay is observed once the change's
   * messages are written (see takeDelays), once per change and channel, not per subscriber.
   */
  private delay(): void {
    this.delays++;
  }

  /** The channels the last change sent on (see delay); resets the count. */
  takeDelays(): number {
    const n = this.delays;
    this.delays = 0;
    return n;
  }

  /**
   * Bars of one resolution after new trades (`fresh`): per subscription at most the bar it last
   * saw once more with final:true (when it changed) and the newest bar, the state after the batch
   * (docs/api.md, Live stream). Bars a batch filled in between are not sent: a chart only takes the
   * newest bar, and a client that wants them refetches history. A trade counts as a backfill only
   * if the subscription's bars do not hold it yet (`seenTo`: a subscription that started while
   * the change waited read its first bar after these trades).
   */
  private deliverBars(t: TokenState, subs: Set<BarSub>, fresh: Fresh): void {
    const first = subs.values().next().value;
    if (first === undefined) return;
    const res = first.res;
    const newest = this.barOf(t, first, this.source.newestBar(t.id, res));
    if (newest === null) return;
    const through = this.source.barsThrough();
    const newestJson = barJson(newest);
    const newestMsg = new Encoded(this.frame, '{"op":"bar",', `"bar":${newestJson},"final":false}`);
    const newestKey = String(newest.t);
    const minBucket = bucketStart(res, fresh.minTime);
    // Subscriptions that last saw the same bar get the same messages: worked out once per group.
    // Keyed by the last bar sent (its text holds its time): the same string object for a whole
    // group, so no key is built per subscriber; the last group is kept at hand, as neighbours
    // in the set mostly share it.
    const plans = new Map<string | null, Plan>();
    let lastGroup: string | null | undefined;
    let lastPlan: Plan = [];
    for (const s of subs) {
      let plan: Plan;
      if (s.seenTo >= fresh.firstId) {
        // Rare: its bars already hold some of these trades.
        const since = minTimeAfter(fresh.pages, s.seenTo);
        plan = this.planBars(t, s, newest, newestJson, newestKey, newestMsg, since === Infinity ? Infinity : bucketStart(res, since));
      } else if (s.lastJson === lastGroup) plan = lastPlan;
      else {
        const group = s.lastJson;
        const known = plans.get(group);
        plan = known ?? this.planBars(t, s, newest, newestJson, newestKey, newestMsg, minBucket);
        if (known === undefined) plans.set(group, plan);
        lastGroup = group;
        lastPlan = plan;
      }
      for (const [op, key, body] of plan) {
        if (op === 'reset') this.metrics.reset('backfill');
        s.conn.sendState(s, op, key, body.for(s.id));
      }
      s.lastT = newest.t;
      s.lastJson = newestJson;
      s.seenTo = through;
    }
  }

  /** The messages a subscription that last saw `s.lastT` gets, its unseen trades' earliest bar being `minBucket`. */
  private planBars(t: TokenState, s: BarSub, newest: Bar, newestJson: string, newestKey: string, newestMsg: Encoded, minBucket: number): Plan {
    const plan: Plan = [];
    if (s.lastT !== null && minBucket < s.lastT) {
      plan.push(['reset', 'reset', new Encoded(this.frame, '{"op":"reset",', '"reason":"backfill"}')]);
      plan.push(['bar', newestKey, newestMsg]);
      return plan;
    }
    if (s.lastT !== null && s.lastT < newest.t) {
      const prev = this.barOf(t, s, this.source.barAt(t.id, s.res, s.lastT));
      const prevJson = prev === null ? null : barJson(prev);
      if (prevJson !== null && prevJson !== s.lastJson) {
        plan.push(['bar', String(s.lastT), new Encoded(this.frame, '{"op":"bar",', `"bar":${prevJson},"final":true}`)]);
      }
    }
    if (s.lastT !== newest.t || s.lastJson !== newestJson) plan.push(['bar', newestKey, newestMsg]);
    return plan;
  }

  /**
   * Market-cap subscriptions whose bars were scaled by another supply than the token's now (a token
   * record changed it): `reset` with reason `supply`, so the client refetches history in the new
   * scale; bars sent after it use the new supply.
   */
  private supplyChanged(t: TokenState): void {
    for (const [key, subs] of t.bars) {
      if (!key.endsWith('|mcap')) continue;
      const supply = this.source.supply(t.id);
      let msg: Encoded | null = null;
      for (const s of subs) {
        if (s.supply === supply) continue;
        s.supply = supply;
        msg ??= new Encoded(this.frame, '{"op":"reset",', '"reason":"supply"}');
        this.metrics.reset('supply');
        s.conn.sendState(s, 'reset', 'reset', msg.for(s.id));
      }
    }
  }

  /** A price bar as the subscription's metric shows it: times the circulating supply for mcap (none without one). */
  private barOf(t: TokenState, s: BarSub, bar: Bar | null): Bar | null {
    if (bar === null || s.metric === 'price') return bar;
    const supply = this.source.supply(t.id);
    return supply === null ? null : mcapBar(bar, supply);
  }

  /** Runs `send` now after a quiet second, else once the second since the last one is over. */
  private throttled(t: TokenState, th: Throttle, send: () => void): void {
    if (th.timer !== null) return;
    const wait = th.lastMs + THROTTLE_MS - this.nowMs();
    const run = () => {
      // A timer that fires while a large ingest transaction is open would read its uncommitted
      // rows: it waits for the end (th.timer stays set meanwhile, so nothing else is scheduled).
      const busy = this.source.settled();
      if (busy !== null) {
        void busy.then(run);
        return;
      }
      th.timer = null;
      th.lastMs = this.nowMs();
      try {
        if (this.tokens.get(t.id) === t) send();
      } catch (err) {
        // From a timer: nothing above would catch it.
        this.onError(err);
      }
    };
    if (wait <= 0) run();
    else th.timer = setTimeout(run, wait);
  }

  private sendPrices(t: TokenState): void {
    const body = priceBody(this.source, t);
    if (body === null || body === t.price.lastJson) return;
    t.price.lastJson = body;
    const msg = new Encoded(this.frame, '{"op":"price",', body);
    for (const s of t.prices) s.conn.sendState(s, 'price', String(t.id), msg.for(s.id));
  }

  private sendOverview(t: TokenState): void {
    const body = overviewBody(this.source, t);
    if (body === null || body === t.view.lastJson) return;
    t.view.lastJson = body;
    const msg = new Encoded(this.frame, '{"op":"overview",', body);
    for (const s of t.overview) s.conn.sendState(s, 'overview', 'overview', msg.for(s.id));
  }
}

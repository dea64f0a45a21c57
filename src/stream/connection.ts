/**
 * One stream connection: its subscriptions and the bounds on what may wait for it (docs/api.md, Live
 * stream, Slow consumers). Bars, prices and overview are keyed states: while the socket is backed
 * up only the newest state of each key is kept, in one write queue per connection. Trades are never
 * dropped silently: over 4 MB waiting, the connection's trade subscriptions get `reset` with
 * reason `overflow` and stop.
 * Whatever else the client makes us send while not reading is bounded by a hard cap, past which
 * the connection is cut; and the bytes waiting for all connections together are bounded by the
 * hub's budget (Output.over, enforced by the hub: the slowest readers are reset, then cut).
 * Every client message is metered per connection (a token bucket), pings included.
 */
import type { ConnectionInfo, Framer, StreamSocket } from './types.js';
import type { Resolution } from '../domain/resolution.js';
import type { ChartMetric } from '../domain/chart-metric.js';
import type { StreamMetrics } from './metrics.js';

/** Trades waiting above this many bytes: the trade subscriptions overflow. */
export const TRADES_OVERFLOW = 4 * 1024 * 1024;
/** No connection may have more than this waiting: it is cut (only a client that never reads gets here). */
export const HARD_LIMIT = 5 * 1024 * 1024;
/** Client messages a connection may send: this many a second on average, in bursts of MESSAGE_BURST. */
export const MESSAGES_PER_SECOND = 50;
export const MESSAGE_BURST = 200;
/** Keyed states held for one subscription while the socket is backed up; more gives it `reset` overflow and its newest state. */
const MAX_HELD = 64;
/** Bytes of one fan-out turn kept for a connection before they are written. */
const KEEP_AT_MOST = 64 * 1024;

export type TokenLink = { id: number; address: string };

/**
 * What the connections of a hub write with: the framer, and while a fan-out turn runs, the list of
 * connections it sent to: each writes what it was sent at the end of the turn, in one write (a
 * write is a system call, most of what a message costs).
 */
export class Output {
  private pending: Connection[] | null = null;
  /**
   * Bytes waiting for every connection, as each last counted them (a socket that drained since
   * is counted high until the hub's next exact count): over `budget`, `onOver` is called (at most
   * once per event-loop turn), and the hub cuts the slowest readers.
   */
  total = 0;
  private overCalled = false;
  constructor(
    readonly frame: Framer,
    public budget = Infinity,
    private readonly onOver: () => void = () => {},
  ) {}

  /** A connection's waiting bytes changed by `delta`. */
  account(delta: number): void {
    this.total += delta;
    if (this.total > this.budget && !this.overCalled) {
      this.overCalled = true;
      setImmediate(() => {
        this.overCalled = false;
        this.onOver();
      });
    }
  }

  /** Runs `fn`, then has every connection it sent to write its queue, one write each. */
  batch(fn: () => void): void {
    const list: Connection[] = [];
    this.pending = list;
    try {
      fn();
    } finally {
      this.pending = null;
      for (const c of list) {
        c.listed = false;
        c.flush();
      }
    }
  }

  /** True while a batch runs (the connection is listed to write at its end); false: write now. */
  defer(c: Connection): boolean {
    if (this.pending === null) return false;
    if (!c.listed) {
      c.listed = true;
      this.pending.push(c);
    }
    return true;
  }
}

/** `off`: unsubscribed (or its connection gone): nothing more is sent for it. */
type SubBase = { id: string; conn: Connection; off: boolean };
/** `seenTo`: the bars sent hold every trade up to this id (none of them is a backfill when it comes). */
/**
 * `metric`: price bars, or market-cap bars (prices times the token's circulating supply); `supply`:
 * the supply its market-cap bars were scaled by, so a change of it is told (`reset` supply).
 */
export type BarSub = SubBase & {
  channel: 'bars';
  token: TokenLink;
  res: Resolution;
  metric: ChartMetric;
  supply: number | null;
  lastT: number | null;
  lastJson: string | null;
  seenTo: number;
};

/** The group of a token's bar subscriptions that get the same bars: one resolution, one metric. */
export const barGroupKey = (s: Pick<BarSub, 'res' | 'metric'>): string => (s.metric === 'price' ? s.res.key : `${s.res.key}|mcap`);
/** `from`: it may have been sent the token's trades with id > from (its `sinceId`, else where it began). */
export type TradeSub = SubBase & { channel: 'trades'; token: TokenLink; stopped: boolean; from: number };
export type PriceSub = SubBase & { channel: 'prices'; tokens: TokenLink[] };
export type OverviewSub = SubBase & { channel: 'overview'; token: TokenLink };
export type Sub = BarSub | TradeSub | PriceSub | OverviewSub;

/**
 * One connection and its write queue. Frames are queued, and written together, one write, at the
 * end of the fan-out turn that sent them or at once outside one; while the socket has not taken
 * the previous write whole (the client reads slower than we send), they wait for it, and a keyed
 * state (a bar of one time, a token's price, the overview) replaces the one of the same
 * subscription and key still waiting, so one write then carries several changes, each state in
 * its newest form. Trades are never replaced: they count toward the 4 MB bound.
 */
export class Connection {
  readonly subs = new Map<string, Sub>();
  bad = 0;
  lastPongMs: number;
  closed = false;
  private nextSub = 1;

  /** Listed by Output for the running turn. */
  listed = false;
  /** The waiting bytes last told to Output.account. */
  accounted = 0;
  /** The message meter: tokens left, and when it was last filled. */
  private tokens = MESSAGE_BURST;
  private filledAt: number;
  /** Messages held while an ingest transaction is open (see Hub), or null. */
  waiting: string[] | null = null;

  /**
   * The queue, its first `n` slots (kept, not shrunk, between writes): frames (null once replaced
   * or written), their ops (for the metrics), and for keyed states their subscription and key.
   */
  private n = 0;
  private frames: (Buffer | null)[] = [];
  private ops: string[] = [];
  private owners: (Sub | null)[] = [];
  private keys: (string | null)[] = [];
  private queued = 0;
  /** A drain notice is armed: the socket had not taken our last write whole. */
  private armed = false;
  /** While backed up: the queue index of each waiting state, by subscription and key (built when first needed). */
  private index: Map<Sub, Map<string, number>> | null = null;
  private readonly drained = (): void => {
    this.armed = false;
    this.flush();
  };

  constructor(
    readonly socket: StreamSocket,
    readonly info: ConnectionInfo,
    private readonly metrics: StreamMetrics,
    private readonly out: Output,
    nowMs: number,
  ) {
    this.lastPongMs = nowMs;
    this.filledAt = nowMs;
  }

  /** Takes one client message from the meter: false when the connection sends faster than it may. */
  meter(nowMs: number): boolean {
    this.tokens = Math.min(MESSAGE_BURST, this.tokens + ((nowMs - this.filledAt) * MESSAGES_PER_SECOND) / 1000);
    this.filledAt = nowMs;
    if (this.tokens < 1) return false;
    this.tokens--;
    return true;
  }

  /** Tells Output what waits for this connection now (exact, socket included). */
  recount(): void {
    const now = this.closed ? 0 : this.waitingBytes;
    this.out.account(now - this.accounted);
    this.accounted = now;
  }

  /** Lets go of the queue once the connection is gone, and of its share of the budget. */
  release(): void {
    this.frames = [];
    this.ops = [];
    this.owners = [];
    this.keys = [];
    this.n = 0;
    this.queued = 0;
    this.index = null;
    this.out.account(-this.accounted);
    this.accounted = 0;
  }

  newSubId(): string {
    return `s${this.nextSub++}`;
  }

  /** Sends a message that is not a keyed state (answers, trades, resets): its text, or its frame. */
  send(op: string, data: string | Buffer): void {
    if (this.closed) return;
    this.enqueue(op, data, null, null);
  }

  /** Bytes waiting to be sent: in the socket, and in the queue. */
  get waitingBytes(): number {
    return this.socket.bufferedAmount + this.queued;
  }

  /** The socket has not taken our last write whole: new frames wait, states coalesce. */
  private get backedUp(): boolean {
    return this.armed && this.socket.bufferedAmount > 0;
  }

  /** Sends the newest state under `key` of `sub`; while the socket is backed up it replaces the one waiting. */
  sendState(sub: Sub, op: string, key: string, data: string | Buffer): void {
    if (this.closed || sub.off) return;
    if (this.n === 0 || !this.backedUp) {
      this.enqueue(op, data, sub, key);
      return;
    }
    const index = this.indexed();
    const mine = index.get(sub);
    const at = mine?.get(key);
    if (at !== undefined) this.drop(at);
    else if (mine !== undefined && mine.size >= MAX_HELD) {
      // Too far behind to replay what changed: the client refetches, then follows from here.
      for (const i of mine.values()) this.drop(i);
      index.delete(sub);
      this.enqueue('reset', `{"op":"reset","sub":"${sub.id}","reason":"overflow"}`, sub, 'reset');
      this.metrics.reset('overflow');
    }
    this.enqueue(op, data, sub, key);
  }

  /** Whether trades may be queued now; over the bound, the trade subscriptions overflow. */
  tradesFit(): boolean {
    if (this.waitingBytes <= TRADES_OVERFLOW) return true;
    for (const sub of this.subs.values()) {
      if (sub.channel === 'trades' && !sub.stopped) this.stopTrades(sub, 'overflow');
    }
    return false;
  }

  /** Stops a trade subscription with a reset; it stays until unsubscribed, silent. */
  stopTrades(sub: TradeSub, reason: 'overflow'): void {
    sub.stopped = true;
    this.send('reset', `{"op":"reset","sub":"${sub.id}","reason":"${reason}"}`);
    this.metrics.reset(reason);
  }

  /** Writes the queue in one write, unless the socket has not taken the last one yet (then its end does). */
  flush(): void {
    const n = this.n;
    if (n === 0 || this.closed || this.backedUp) return;
    let out: Buffer | null = null;
    let parts: Buffer[] | null = null;
    for (let i = 0; i < n; i++) {
      const f = this.frames[i]!;
      if (f === null) continue;
      // Written: let go of the frame (a large replay's must not live on in an idle connection).
      this.frames[i] = null;
      this.owners[i] = null;
      this.metrics.sent(this.ops[i]!);
      if (out === null) out = f;
      else (parts ??= [out]).push(f);
    }
    this.n = 0;
    this.queued = 0;
    this.index = null;
    if (out === null) return;
    this.socket.write(parts === null ? out : Buffer.concat(parts));
    this.recount();
    // Not taken whole (the client reads slower than we send): what comes next waits for the drain.
    if (!this.armed && this.socket.bufferedAmount > 0) {
      this.armed = true;
      this.socket.drained(this.drained);
    }
  }

  /** Something waits for the socket. */
  get holding(): boolean {
    return this.n > 0;
  }

  /** Writes what waits (`deliver`), then closes with `code`; nothing is sent after. */
  close(code: number, reason: string, deliver: boolean): void {
    if (this.closed) return;
    if (deliver && this.n > 0) {
      this.armed = false;
      this.flush();
    }
    this.closed = true;
    this.socket.close(code, reason);
  }

  /** Cuts the connection at once. */
  terminate(): void {
    this.closed = true;
    this.socket.terminate();
  }

  private enqueue(op: string, data: string | Buffer, owner: Sub | null, key: string | null): void {
    if (this.waitingBytes > HARD_LIMIT) {
      this.terminate();
      return;
    }
    const frame = typeof data === 'string' ? this.out.frame(Buffer.from(data)) : data;
    if (this.index !== null && owner !== null) {
      let mine = this.index.get(owner);
      if (mine === undefined) this.index.set(owner, (mine = new Map()));
      mine.set(key!, this.n);
    }
    const i = this.n++;
    this.frames[i] = frame;
    this.ops[i] = op;
    this.owners[i] = owner;
    this.keys[i] = key;
    this.queued += frame.length;
    this.accounted += frame.length;
    this.out.account(frame.length);
    // Outside a turn, at once; in one, at its end, or now when a large change has piled up, so the
    // socket's own buffer takes its share before the bounds on waiting bytes are reached.
    if (!this.out.defer(this) || this.queued > KEEP_AT_MOST) this.flush();
  }

  private drop(i: number): void {
    const f = this.frames[i];
    if (f === null || f === undefined) return;
    this.queued -= f.length;
    this.frames[i] = null;
    this.owners[i] = null;
  }

  /** The index of the waiting states, built from the queue when first needed. */
  private indexed(): Map<Sub, Map<string, number>> {
    if (this.index !== null) return this.index;
    const index = new Map<Sub, Map<string, number>>();
    for (let i = 0; i < this.n; i++) {
      const owner = this.owners[i];
      if (owner === null || owner === undefined) continue;
      let mine = index.get(owner);
      if (mine === undefined) index.set(owner, (mine = new Map()));
      mine.set(this.keys[i]!, i);
    }
    return (this.index = index);
  }
}

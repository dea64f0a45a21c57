/**
 * One stream connection: its subscriptions and the bounds on what may wait for it (docs/api.md, Live
 * stream, Slow consumers). Bars, prices and overview are keyed states: while the socket is backed
 * up only the newest state of each key is kept. Trades are never dropped silently: over 4 MB
 * waiting, the connection's trade subscriptions get `reset` with reason `overflow` and stop.
 * Whatever else the client makes us send while not reading is bounded by a hard cap, past which
 * the connection is cut.
 */
import type { ConnectionInfo, Framer, StreamSocket } from './types.js';
import type { Resolution } from '../domain/resolution.js';
import type { StreamMetrics } from './metrics.js';

/** Above this many bytes waiting, keyed states are held back and coalesced. */
export const HIGH_WATER = 64 * 1024;
/** Trades waiting above this many bytes: the trade subscriptions overflow. */
export const TRADES_OVERFLOW = 4 * 1024 * 1024;
/** No connection may have more than this waiting: it is cut (only a client that never reads gets here). */
export const HARD_LIMIT = 8 * 1024 * 1024;
/** Keyed states held for one subscription; more gives it `reset` overflow and its newest state. */
const MAX_HELD = 64;
/** Bytes of one change kept for a connection before they are written. */
const KEEP_AT_MOST = 64 * 1024;

export type TokenLink = { id: number; address: string };

/** A message: its op (for the metrics) and its text, or its frame (made by the Framer). */
export type Out = [op: string, data: string | Buffer];

/**
 * What the connections of a hub write with: the framer, and while a change is fanned out, the
 * frames of each connection, written at its end in one write per connection (a write is a
 * system call, most of what a message costs; corking costs more than it saves for the usual one
 * message per connection and change).
 */
export class Output {
  private pending: Connection[] | null = null;
  constructor(readonly frame: Framer) {}

  /** Runs `fn`, then writes what it sent, one write per connection. */
  batch(fn: () => void): void {
    const list: Connection[] = [];
    this.pending = list;
    try {
      fn();
    } finally {
      this.pending = null;
      for (const c of list) {
        c.listed = false;
        c.writePending();
      }
    }
  }

  /** Keeps `frame` for the running batch; false when none runs (write it now). */
  keep(c: Connection, frame: Buffer): boolean {
    if (this.pending === null) return false;
    // A large change (thousands of trades) is written as it goes, so the socket's own buffer
    // takes its share before the bounds on waiting bytes are reached, as without batching.
    if (c.keptBytes > 0 && c.keptBytes + frame.length > KEEP_AT_MOST) c.writePending();
    c.keptBytes += frame.length;
    if (c.frames === null) {
      c.frames = frame;
      if (!c.listed) {
        c.listed = true;
        this.pending.push(c);
      }
    } else if (Buffer.isBuffer(c.frames)) c.frames = [c.frames, frame];
    else c.frames.push(frame);
    return true;
  }
}

type SubBase = { id: string; conn: Connection; held: Map<string, Out> | null };
/** `seenTo`: the bars sent hold every trade up to this id (none of them is a backfill when it comes). */
export type BarSub = SubBase & { channel: 'bars'; token: TokenLink; res: Resolution; lastT: number | null; lastJson: string | null; seenTo: number };
export type TradeSub = SubBase & { channel: 'trades'; token: TokenLink; stopped: boolean };
export type PriceSub = SubBase & { channel: 'prices'; tokens: TokenLink[] };
export type OverviewSub = SubBase & { channel: 'overview'; token: TokenLink };
export type Sub = BarSub | TradeSub | PriceSub | OverviewSub;

export class Connection {
  readonly subs = new Map<string, Sub>();
  bad = 0;
  lastPongMs: number;
  closed = false;
  private nextSub = 1;
  private readonly backlog = new Set<Sub>();

  /** Frames kept for the change being fanned out (see Output), or null, and their bytes. */
  frames: Buffer | Buffer[] | null = null;
  keptBytes = 0;
  listed = false;
  /** Messages held while an ingest transaction is open (see Hub), or null. */
  waiting: string[] | null = null;

  constructor(
    readonly socket: StreamSocket,
    readonly info: ConnectionInfo,
    private readonly metrics: StreamMetrics,
    private readonly out: Output,
    nowMs: number,
  ) {
    this.lastPongMs = nowMs;
  }

  newSubId(): string {
    return `s${this.nextSub++}`;
  }

  /** Sends a message that is not a keyed state (answers, trades, resets): its text, or its frame. */
  send(op: string, data: string | Buffer): void {
    if (this.closed) return;
    if (this.waitingBytes > HARD_LIMIT) {
      this.closed = true;
      this.socket.terminate();
      return;
    }
    const frame = typeof data === 'string' ? this.out.frame(Buffer.from(data)) : data;
    if (!this.out.keep(this, frame)) this.socket.write(frame);
    this.metrics.sent(op);
  }

  /** Bytes waiting to be sent: in the socket, and kept for the change being fanned out. */
  get waitingBytes(): number {
    return this.socket.bufferedAmount + this.keptBytes;
  }

  /** Writes the frames kept for a change (see Output). */
  writePending(): void {
    const f = this.frames;
    this.frames = null;
    this.keptBytes = 0;
    if (f === null || this.closed) return;
    this.socket.write(Buffer.isBuffer(f) ? f : Buffer.concat(f));
  }

  /** Sends the newest state under `key` of `sub`, or holds it while the socket is backed up. */
  sendState(sub: Sub, op: string, key: string, data: string | Buffer): void {
    if (this.closed || !this.subs.has(sub.id)) return;
    if (sub.held === null && this.waitingBytes <= HIGH_WATER) {
      this.send(op, data);
      return;
    }
    sub.held ??= new Map();
    if (sub.held.size >= MAX_HELD && !sub.held.has(key)) {
      // Too far behind to replay what changed: the client refetches, then follows from here.
      sub.held.clear();
      sub.held.set('reset', ['reset', `{"op":"reset","sub":"${sub.id}","reason":"overflow"}`]);
      this.metrics.reset('overflow');
    }
    sub.held.set(key, [op, data]);
    this.backlog.add(sub);
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

  /** Sends what was held back once the socket has drained; true while something is still held. */
  flush(): boolean {
    if (this.closed) return false;
    if (this.waitingBytes > HIGH_WATER / 2) return this.backlog.size > 0;
    for (const sub of this.backlog) {
      const held = sub.held;
      sub.held = null;
      if (held === null || !this.subs.has(sub.id)) continue;
      for (const [op, data] of held.values()) this.send(op, data);
    }
    this.backlog.clear();
    return false;
  }

  get holding(): boolean {
    return this.backlog.size > 0;
  }
}

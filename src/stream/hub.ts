/**
 * The live hub (docs/api.md, Live stream): connections, their messages, subscribe and unsubscribe with
 * their replays (`since`, `sinceId`), liveness pings, revocation checks and shutdown. Framework
 * free: it is handed sockets and the store's reads (StreamReads); src/http/stream.ts does the upgrade.
 * Reads answer promises, so what touches the fan-out runs in turns, in the order it came: a change
 * (src/stream/changes.ts) or a subscription's start. A connection's messages run in order.
 */
import { parseMessage, MAX_SUBSCRIPTIONS, type Command, type ProtoError } from './protocol.js';
import { Connection, Output, type Sub, type TokenLink } from './connection.js';
import { Fanout } from './fanout.js';
import { follow, unfollow } from './follow.js';
import { ChangeReads } from './change-reads.js';
import { ChangeTurns } from './changes.js';
import { checkKeys } from './key-check.js';
import type { ConnectionInfo, Framer, StreamReads, StreamSocket } from './types.js';
import type { StreamMetrics } from './metrics.js';

/** Bad messages a connection may send; the next one closes it with 1008. */
export const MAX_BAD_MESSAGES = 100;
const PING_EVERY_MS = 30_000;
const DEAD_AFTER_MS = 60_000;
/** How often commits of other processes, key revocations and held states are looked at. */
const CHECK_EVERY_MS = 250;
/**
 * Bytes waiting for all connections together (docs/api.md, Live stream: slow consumers): past it
 * the slowest readers' trade subscriptions are reset, and the slowest are cut until it fits.
 */
export const STREAM_BUDGET_BYTES = 64 * 1024 * 1024;
/** Over the budget, a connection with more than this waiting counts as a slow reader. */
const SLOW_READER_BYTES = 256 * 1024;

export type HubOptions = {
  source: StreamReads;
  metrics: StreamMetrics;
  /** Frames the messages (src/http/stream-socket.ts). */
  frame: Framer;
  nowMs?: () => number;
  /** Liveness: ping this often, cut a connection silent this long (defaults 30 s and 60 s). */
  pingEveryMs?: number;
  deadAfterMs?: number;
  /** Told about a failure of the fan-out, which must never fail the ingest that caused it. */
  onError?: (err: unknown) => void;
  /** The process-wide budget of bytes waiting (default STREAM_BUDGET_BYTES). */
  budgetBytes?: number;
};

export type ConnectionHandle = { message(text: string): void; pong(): void; closed(): void };

export class Hub {
  private readonly conns = new Set<Connection>();
  private readonly perBucket = new Map<string, number>();
  private readonly fanout: Fanout;
  /** What the fan-out reads (answers read ahead, in turns), and each connection's last message handled. */
  private readonly view: ChangeReads;
  private readonly handling = new WeakMap<Connection, Promise<void>>();
  private checking = false;
  private readonly out: Output;
  private readonly nowMs: () => number;
  private timers: NodeJS.Timeout[] = [];
  private unlisten: () => void;

  constructor(private readonly opts: HubOptions) {
    this.nowMs = opts.nowMs ?? (() => performance.now());
    this.out = new Output(opts.frame, opts.budgetBytes ?? STREAM_BUDGET_BYTES, () => this.enforceBudget());
    this.view = new ChangeReads(opts.source);
    this.fanout = new Fanout(this.view, opts.metrics, opts.frame, this.nowMs, (err) => opts.onError?.(err));
    const changes = new ChangeTurns(opts.source, this.view, this.fanout, this.out, opts.metrics, this.nowMs, (err) => opts.onError?.(err));
    this.unlisten = opts.source.onChange((tokens) => {
      if (this.conns.size > 0) changes.heard(tokens);
    });
  }

  /** Resolves once every turn queued so far has run (changes fanned out, subscriptions started). */
  idle(): Promise<void> {
    return this.view.idle();
  }

  /** Open connections in the caller's bucket (for the connection cap). */
  openIn(bucket: string): number {
    return this.perBucket.get(bucket) ?? 0;
  }

  get connections(): number {
    return this.conns.size;
  }

  /** The process-wide budget of bytes waiting (tests and the benchmark shrink it). */
  get budgetBytes(): number {
    return this.out.budget;
  }
  set budgetBytes(bytes: number) {
    this.out.budget = bytes;
  }

  /** Bytes waiting to be sent (in the socket and in its queue), per open connection: what the slow-consumer bounds hold down. */
  buffered(): number[] {
    return [...this.conns].map((c) => c.waitingBytes);
  }

  /** Takes over an upgraded socket; the caller wires the socket's events to the handle. */
  connect(socket: StreamSocket, info: ConnectionInfo): ConnectionHandle {
    const conn = new Connection(socket, info, this.opts.metrics, this.out, this.nowMs());
    this.conns.add(conn);
    this.perBucket.set(info.bucket, this.openIn(info.bucket) + 1);
    this.opts.metrics.connections(this.conns.size);
    if (this.conns.size === 1) this.startTimers();
    return {
      message: (text) => this.onMessage(conn, text),
      pong: () => void (conn.lastPongMs = this.nowMs()),
      closed: () => this.drop(conn),
    };
  }

  /**
   * Closes every connection with 1001 (server going away); resolves once they are gone or cut. What
   * was committed before is delivered first: the turns already queued (changes heard, their
   * fan-out) run, and each connection writes what waits for it ahead of the close.
   */
  async close(timeoutMs = 2000): Promise<void> {
    this.unlisten();
    // One deadline for both steps: shutdown as a whole stays within its bound.
    const deadline = Date.now() + timeoutMs;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.view.idle(), new Promise<void>((r) => (timer = setTimeout(r, timeoutMs)))]);
    clearTimeout(timer);
    for (const c of [...this.conns]) c.close(1001, 'server shutting down', true);
    while (this.conns.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    for (const c of [...this.conns]) c.terminate();
    this.stopTimers();
  }

  /**
   * Over the budget of bytes waiting for all connections: counts each exactly; every connection
   * with more than SLOW_READER_BYTES waiting gets its trade subscriptions reset (`overflow`: what
   * grows without bound stops growing), then the slowest readers (the most waiting) are cut until
   * the total fits. Readers that keep up are never touched.
   */
  private enforceBudget(): void {
    const list = [...this.conns];
    for (const c of list) c.recount();
    if (this.out.total <= this.out.budget) return;
    list.sort((a, b) => b.accounted - a.accounted);
    for (const c of list) {
      if (c.accounted <= SLOW_READER_BYTES) break;
      for (const sub of c.subs.values()) if (sub.channel === 'trades' && !sub.stopped) c.stopTrades(sub, 'overflow');
    }
    for (const c of list) {
      if (this.out.total <= this.out.budget || c.accounted <= SLOW_READER_BYTES) break;
      c.terminate();
      c.recount();
    }
  }

  private drop(conn: Connection): void {
    if (!this.conns.delete(conn)) return;
    conn.closed = true;
    conn.release();
    for (const sub of [...conn.subs.values()]) this.unsubscribe(conn, sub);
    const left = this.openIn(conn.info.bucket) - 1;
    if (left > 0) this.perBucket.set(conn.info.bucket, left);
    else this.perBucket.delete(conn.info.bucket);
    this.opts.metrics.connections(this.conns.size);
    if (this.conns.size === 0) this.stopTimers();
  }

  private startTimers(): void {
    this.timers.push(setInterval(() => this.check(), CHECK_EVERY_MS));
    this.timers.push(setInterval(() => this.liveness(), this.opts.pingEveryMs ?? PING_EVERY_MS));
    for (const t of this.timers) t.unref();
  }

  private stopTimers(): void {
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
  }

  /** Commits of other processes, revoked or expired keys, and held states that can go out now. */
  private check(): void {
    // The exact count of what waits (sockets drain without telling us), and the budget kept.
    for (const c of this.conns) c.recount();
    if (this.out.total > this.out.budget) this.enforceBudget();
    try {
      this.opts.source.checkExternalChanges();
    } catch {
      return; // the store is closing
    }
    // One check at a time: a slow store delays the next one instead of piling them up.
    if (this.checking) return;
    this.checking = true;
    void checkKeys(
      [...this.conns],
      (c) => this.conns.has(c),
      (k) => this.opts.source.keyValid(k),
    ).finally(() => (this.checking = false));
  }

  private liveness(): void {
    const now = this.nowMs();
    for (const c of this.conns) {
      if (now - c.lastPongMs > (this.opts.deadAfterMs ?? DEAD_AFTER_MS)) c.terminate();
      else c.socket.ping();
    }
  }

  /**
   * While a large ingest transaction is open (written in slices, the event loop running between
   * them), this process's connection to the store sees its uncommitted rows: a message is held,
   * its socket paused, until the commit, so no replay carries a trade that may yet roll back.
   */
  private onMessage(conn: Connection, text: string): void {
    if (conn.closed) return;
    // Every message is metered, pings included, before it is parsed or held.
    if (!conn.meter(this.nowMs())) return this.refuse(conn, { id: null, code: 'rate_limited', message: 'too many messages on this connection; slow down' });
    if (conn.waiting === null) {
      const busy = this.opts.source.settled();
      if (busy === null) return this.handle(conn, text);
      conn.waiting = [];
      conn.socket.pause();
      void busy.then(() => this.resume(conn));
    }
    conn.waiting.push(text);
  }

  private resume(conn: Connection): void {
    const busy = this.opts.source.settled();
    if (busy !== null && !conn.closed) {
      void busy.then(() => this.resume(conn));
      return;
    }
    const held = conn.waiting ?? [];
    conn.waiting = null;
    for (const text of held) this.handle(conn, text);
    if (!conn.closed) conn.socket.resume();
  }

  /** Handles `text` once the connection's earlier messages are answered. */
  private handle(conn: Connection, text: string): void {
    const next = (this.handling.get(conn) ?? Promise.resolve()).then(() => this.handleNow(conn, text));
    this.handling.set(conn, next);
  }

  private async handleNow(conn: Connection, text: string): Promise<void> {
    if (conn.closed) return;
    const cmd = parseMessage(text);
    let err: ProtoError | null;
    try {
      err = 'code' in cmd ? cmd : await this.run(conn, cmd);
    } catch (e) {
      // A store fault: logged, answered like a 500 (never with its details), the connection kept.
      this.opts.onError?.(e);
      conn.send('error', JSON.stringify({ op: 'error', id: 'code' in cmd ? null : cmd.id, error: { code: 'internal', message: 'internal error' } }));
      return;
    }
    if (err === null) return;
    this.refuse(conn, err);
  }

  /** Answers a bad message with its error; the 101st closes the connection with 1008. */
  private refuse(conn: Connection, err: ProtoError): void {
    conn.bad++;
    if (conn.bad > MAX_BAD_MESSAGES) {
      conn.close(1008, 'too many bad messages', true);
      return;
    }
    const error: Record<string, string> = { code: err.code, message: err.message };
    if (err.param !== undefined) error.param = err.param;
    conn.send('error', JSON.stringify({ op: 'error', id: err.id, error }));
  }

  /** Runs a well-formed command; the error to answer with, or null when it was answered. */
  private async run(conn: Connection, cmd: Command): Promise<ProtoError | null> {
    if (cmd.op === 'ping') {
      conn.send('pong', JSON.stringify({ op: 'pong', id: cmd.id }));
      return null;
    }
    if (cmd.op === 'unsubscribe') {
      const sub = conn.subs.get(cmd.sub);
      if (sub === undefined) return { id: cmd.id, code: 'subscription_not_found', message: `no subscription ${cmd.sub} on this connection`, param: 'sub' };
      const wait = await conn.info.charge();
      if (wait !== null) return { id: cmd.id, code: 'rate_limited', message: `too many requests; retry in ${wait} s` };
      this.unsubscribe(conn, sub);
      conn.send('unsubscribed', JSON.stringify({ op: 'unsubscribed', id: cmd.id, sub: sub.id }));
      return null;
    }
    if (conn.subs.size >= MAX_SUBSCRIPTIONS) {
      return { id: cmd.id, code: 'invalid_parameter', message: `at most ${MAX_SUBSCRIPTIONS} subscriptions per connection`, param: 'op' };
    }
    // Catch up with other processes first, so a replay and the live messages after it meet exactly.
    this.opts.source.checkExternalChanges();
    const names = cmd.channel === 'prices' ? cmd.tokens : [cmd.token];
    const found = await Promise.all(names.map((name) => this.opts.source.resolve(name)));
    const asked: TokenLink[] = [];
    for (const [i, name] of names.entries()) {
      const t = found[i] ?? null;
      if (t === null) return { id: cmd.id, code: 'token_not_found', message: `unknown token ${name}`, param: cmd.channel === 'prices' ? 'tokens' : 'token' };
      asked.push(t);
    }
    // A market cap needs a circulating supply: refused like a bad parameter, as /v1 candles refuses it.
    if (cmd.channel === 'bars' && cmd.metric === 'mcap' && (await this.opts.source.supply(asked[0]!.id)) === null) {
      return { id: cmd.id, code: 'invalid_parameter', message: 'metric mcap needs a circulating supply, and this token has none', param: 'metric' };
    }
    const wait = await conn.info.charge();
    if (wait !== null) return { id: cmd.id, code: 'rate_limited', message: `too many requests; retry in ${wait} s` };
    await this.view.inTurn(() => this.subscribe(conn, cmd, asked));
    return null;
  }

  /** `asked`: the token of each name, in the order asked (a prices subscription may name one twice). */
  private async subscribe(conn: Connection, cmd: Extract<Command, { op: 'subscribe' }>, asked: TokenLink[]): Promise<void> {
    // Closed while its turn waited: nothing to follow (drop() has already unsubscribed the rest).
    if (conn.closed) return;
    const id = conn.newSubId();
    const tokens = asked.filter((t, i) => asked.findIndex((x) => x.id === t.id) === i);
    const first = tokens[0]!;
    let sub: Sub;
    let answer: Record<string, unknown>;
    switch (cmd.channel) {
      case 'bars':
        sub = {
          id,
          conn,
          off: false,
          channel: 'bars',
          token: first,
          res: cmd.resolution,
          metric: cmd.metric,
          supply: null,
          lastT: null,
          lastJson: null,
          seenTo: 0,
        };
        answer = { op: 'subscribed', id: cmd.id, sub: id, channel: 'bars', ...this.named(first), resolution: cmd.resolution.key };
        // Said only when asked for, so a price subscription's answer stays as it always was.
        if (cmd.metric === 'mcap') answer.metric = 'mcap';
        break;
      case 'trades':
        sub = { id, conn, off: false, channel: 'trades', token: first, stopped: false, from: 0 };
        answer = { op: 'subscribed', id: cmd.id, sub: id, channel: 'trades', ...this.named(first) };
        break;
      case 'prices':
        sub = { id, conn, off: false, channel: 'prices', tokens };
        answer = { op: 'subscribed', id: cmd.id, sub: id, channel: 'prices', ...this.namedAll(asked) };
        break;
      case 'overview':
        sub = { id, conn, off: false, channel: 'overview', token: first };
        answer = { op: 'subscribed', id: cmd.id, sub: id, channel: 'overview', ...this.named(first) };
        break;
    }
    conn.subs.set(id, sub);
    this.opts.metrics.subscriptions(sub.channel, 1);
    conn.send('subscribed', JSON.stringify(answer));
    await follow(this.fanout, this.opts.source, this.view, sub, cmd);
  }

  /**
   * The token a `subscribed` names (docs/chains.md, Answers): `token` its plain address, `chain`
   * after it when the deployment serves several; on one chain the address alone, as before chains.
   */
  private named(t: TokenLink): { token: string; chain?: string } {
    const f = this.opts.source.fields?.(t.address) ?? { address: t.address };
    return f.chain === undefined ? { token: f.address } : { token: f.address, chain: f.chain };
  }

  /** A prices `subscribed`: `tokens` the plain addresses in the order asked, `chains` theirs alongside when several. */
  private namedAll(asked: TokenLink[]): { tokens: string[]; chains?: string[] } {
    const named = asked.map((t) => this.named(t));
    const tokens = named.map((n) => n.token);
    return named.some((n) => n.chain !== undefined) ? { tokens, chains: named.map((n) => n.chain ?? '') } : { tokens };
  }

  private unsubscribe(conn: Connection, sub: Sub): void {
    if (!conn.subs.delete(sub.id)) return;
    sub.off = true;
    this.opts.metrics.subscriptions(sub.channel, -1);
    unfollow(this.fanout, sub);
  }
}

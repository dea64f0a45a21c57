/**
 * A chart as a stream client keeps it: bars by time per resolution (a `bar` replaces the bar of
 * its time; a `reset` refetches /udf/history), trades by id (a `removed` drops them), and the resume points (last bar
 * time, last trade id) it reconnects with. It also notes each jump of its newest bar: bars a
 * batch filled in between are not on the stream (docs/api.md, Live stream), so those are the only
 * bars of history a live chart may lack. Used by the property tests to compare what a client
 * ends up with against the store.
 */
import { Client, type Msg } from './support.js';
import type { Live } from './support.js';
import { barsOf, type RefBar } from '../udf/support.js';
import { hubOf } from '../../src/http/stream.js';

const END = 253402300800;

export async function history(live: Live, token: string, resolution: string): Promise<RefBar[]> {
  const res = await live.http.get('/udf/history').query({ symbol: token, resolution, to: END, countback: 5000 });
  return res.body.s === 'ok' ? barsOf(res.body) : [];
}

export class ChartClient {
  readonly bars = new Map<string, Map<number, RefBar>>();
  /** Per resolution, the (older, newer) newest-bar times of each jump: bars strictly inside may be missing. */
  readonly jumps = new Map<string, [number, number][]>();
  readonly trades = new Map<number, number>(); // id -> times received
  /** Ids `removed` named that the client did not hold (a trade removed while on its way). */
  readonly unknownRemoved: number[] = [];
  /** Subscriptions that got more than one final or one newest bar for one batch. */
  readonly breaches: string[] = [];
  lastTradeId = 0;
  resets = 0;
  private client: Client | null = null;
  private subs = new Map<string, string>(); // sub -> resolution, or 'trades'
  private seen = 0;

  constructor(
    private readonly live: Live,
    private readonly token: string,
    readonly resolutions: readonly string[],
  ) {
    for (const r of resolutions) {
      this.bars.set(r, new Map());
      this.jumps.set(r, []);
    }
  }

  get connected(): boolean {
    return this.client !== null;
  }

  /** Connects and subscribes: bars since the last bar held (0 at first), trades since the last id. */
  async connect(): Promise<void> {
    this.client = await Client.open(`${this.live.wsBase}/v1/stream`);
    this.subs.clear();
    this.seen = 0;
    for (const r of this.resolutions) {
      const held = [...this.bars.get(r)!.keys()];
      const since = held.length === 0 ? 0 : Math.max(...held);
      const ok = await this.client.request({ op: 'subscribe', channel: 'bars', token: this.token, resolution: r, since });
      this.subs.set(ok.sub, r);
    }
    const ok = await this.client.request({ op: 'subscribe', channel: 'trades', token: this.token, sinceId: this.lastTradeId });
    this.subs.set(ok.sub, 'trades');
    await this.sync();
  }

  /** Drops the connection without a goodbye. */
  async drop(): Promise<void> {
    if (this.client === null) return;
    this.client.ws.terminate();
    this.client = null;
  }

  /**
   * Waits until everything the server sent so far has arrived (the hub's turns queued so far have
   * run, and a ping's pong comes after what they wrote), then
   * applies it. `batch`: what arrived is the answer to one ingest batch, checked against the rule
   * of at most one final bar and one newest bar per subscription (noted in `breaches`).
   */
  async sync(batch = false): Promise<void> {
    const c = this.client;
    if (c === null) return;
    await hubOf(this.live.app).idle();
    await c.request({ op: 'ping' });
    const fresh = c.messages.slice(this.seen);
    this.seen = c.messages.length;
    if (batch) this.countBatch(fresh);
    const reset = new Set<string>();
    for (const m of fresh) if (m.op === 'reset') reset.add(m.sub);
    for (const m of fresh) await this.apply(m, reset);
    for (const sub of reset) {
      const r = this.subs.get(sub)!;
      this.resets++;
      this.bars.set(r, new Map((await history(this.live, this.token, r)).map((b) => [b.t, b])));
    }
  }

  private countBatch(fresh: Msg[]): void {
    for (const [sub, kind] of this.subs) {
      const bars = fresh.filter((m) => m.sub === sub && m.op === 'bar');
      const finals = bars.filter((m) => m.final).length;
      if (finals > 1 || bars.length - finals > 1) this.breaches.push(`${kind}: ${JSON.stringify(bars)}`);
    }
  }

  private async apply(m: Msg, reset: Set<string>): Promise<void> {
    const kind = this.subs.get(m.sub);
    if (kind === undefined || 'id' in m) return;
    if (m.op === 'bar' && !reset.has(m.sub)) {
      const held = this.bars.get(kind)!;
      // A chart with no bar yet jumps from the beginning of time.
      const newest = held.size === 0 ? -Infinity : Math.max(...held.keys());
      if (m.bar.t > newest) this.jumps.get(kind)!.push([newest, m.bar.t]);
      held.set(m.bar.t, m.bar);
    }
    if (m.op === 'trades') {
      for (const t of m.trades) {
        this.trades.set(t.id, (this.trades.get(t.id) ?? 0) + 1);
        this.lastTradeId = Math.max(this.lastTradeId, t.id);
      }
    }
    if (m.op === 'removed') {
      for (const t of m.trades) if (!this.trades.delete(t.id)) this.unknownRemoved.push(t.id);
    }
    if (m.op === 'reset' && kind === 'trades') throw new Error(`trades reset: ${m.reason}`);
  }

  /**
   * What a live chart must hold against `expected` (history now): its newest bar, every bar it
   * holds equal to history's (a changed bar is always sent again, final), and of history's bars
   * only those a batch jumped over missing. An error naming the first difference, or null.
   */
  mismatch(resolution: string, expected: RefBar[]): string | null {
    const held = this.bars.get(resolution)!;
    const want = new Map(expected.map((b) => [b.t, b]));
    const newest = expected.at(-1);
    const mine = this.sorted(resolution);
    if (JSON.stringify(mine.at(-1)) !== JSON.stringify(newest))
      return `${resolution}: newest ${JSON.stringify(mine.at(-1))}, history ${JSON.stringify(newest)}`;
    for (const b of mine) {
      if (JSON.stringify(b) !== JSON.stringify(want.get(b.t))) return `${resolution}: bar ${JSON.stringify(b)}, history ${JSON.stringify(want.get(b.t))}`;
    }
    const jumps = this.jumps.get(resolution)!;
    for (const b of expected) {
      if (!held.has(b.t) && !jumps.some(([a, z]) => a < b.t && b.t < z)) return `${resolution}: bar ${b.t} missing, not inside a jump`;
    }
    return null;
  }

  sorted(resolution: string): RefBar[] {
    return [...this.bars.get(resolution)!.values()].sort((a, b) => a.t - b.t);
  }

  close(): void {
    this.client?.close();
  }
}

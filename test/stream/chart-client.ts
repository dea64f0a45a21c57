/**
 * A chart as a stream client keeps it: bars by time per resolution (a `bar` replaces the bar of
 * its time; a `reset` refetches /udf/history), trades by id, and the resume points (last bar
 * time, last trade id) it reconnects with. Used by the property tests to compare what a client
 * ends up with against the store.
 */
import { Client, type Msg } from './support.js';
import type { Live } from './support.js';
import { barsOf, type RefBar } from '../udf/support.js';

const END = 253402300800;

export async function history(live: Live, token: string, resolution: string): Promise<RefBar[]> {
  const res = await live.http.get('/udf/history').query({ symbol: token, resolution, to: END, countback: 5000 });
  return res.body.s === 'ok' ? barsOf(res.body) : [];
}

export class ChartClient {
  readonly bars = new Map<string, Map<number, RefBar>>();
  readonly trades = new Map<number, number>(); // id -> times received
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
    for (const r of resolutions) this.bars.set(r, new Map());
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

  /** Waits until everything the server sent so far has arrived (a ping's pong comes after it), then applies it. */
  async sync(): Promise<void> {
    const c = this.client;
    if (c === null) return;
    await c.request({ op: 'ping' });
    const fresh = c.messages.slice(this.seen);
    this.seen = c.messages.length;
    const reset = new Set<string>();
    for (const m of fresh) if (m.op === 'reset') reset.add(m.sub);
    for (const m of fresh) await this.apply(m, reset);
    for (const sub of reset) {
      const r = this.subs.get(sub)!;
      this.resets++;
      this.bars.set(r, new Map((await history(this.live, this.token, r)).map((b) => [b.t, b])));
    }
  }

  private async apply(m: Msg, reset: Set<string>): Promise<void> {
    const kind = this.subs.get(m.sub);
    if (kind === undefined || 'id' in m) return;
    if (m.op === 'bar' && !reset.has(m.sub)) this.bars.get(kind)!.set(m.bar.t, m.bar);
    if (m.op === 'trades') {
      for (const t of m.trades) {
        this.trades.set(t.id, (this.trades.get(t.id) ?? 0) + 1);
        this.lastTradeId = Math.max(this.lastTradeId, t.id);
      }
    }
    if (m.op === 'reset' && kind === 'trades') throw new Error(`trades reset: ${m.reason}`);
  }

  sorted(resolution: string): RefBar[] {
    return [...this.bars.get(resolution)!.values()].sort((a, b) => a.t - b.t);
  }

  close(): void {
    this.client?.close();
  }
}

/**
 * The stream's Prometheus metrics (docs/api.md, Operations), registered in the registry `/metrics`
 * scrapes. Connections and subscriptions are gauges the hub keeps current; the delivery delay is
 * the time from the commit notification to the send of a message it caused.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export type StreamMetrics = {
  connections(n: number): void;
  subscriptions(channel: string, delta: number): void;
  sent(op: string): void;
  reset(reason: string): void;
  delay(seconds: number): void;
};

const DELAY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** Registers the stream metrics in `registry`; once per registry (createMetrics does it). */
export function streamMetrics(registry: Registry): StreamMetrics {
  const registers = [registry];
  const connections = new Gauge({ name: 'stream_connections', help: 'Open stream connections.', registers });
  const subscriptions = new Gauge({ name: 'stream_subscriptions', help: 'Stream subscriptions, by channel.', labelNames: ['channel'] as const, registers });
  // Counted in plain numbers per op and added to the counter when scraped: a labelled inc per
  // message (tens of thousands a second at 10,000 subscribers) hashes its labels every time.
  const pending = new Map<string, { n: number }>();
  new Counter({
    name: 'stream_messages_sent_total',
    help: 'Stream messages sent, by op.',
    labelNames: ['op'] as const,
    registers,
    collect() {
      for (const [op, c] of pending) {
        if (c.n > 0) this.inc({ op }, c.n);
        c.n = 0;
      }
    },
  });
  const resets = new Counter({ name: 'stream_resets_total', help: 'Stream resets sent, by reason.', labelNames: ['reason'] as const, registers });
  const delay = new Histogram({
    name: 'stream_delivery_delay_seconds',
    help: 'Time from an ingest commit being seen to its messages being written to the sockets, once per change and channel of a token.',
    buckets: DELAY_BUCKETS,
    registers,
  });
  for (const channel of ['bars', 'trades', 'prices', 'overview']) subscriptions.set({ channel }, 0);
  connections.set(0);
  const m: StreamMetrics = {
    connections: (n) => connections.set(n),
    subscriptions: (channel, d) => subscriptions.inc({ channel }, d),
    sent: (op) => {
      const c = pending.get(op);
      if (c === undefined) pending.set(op, { n: 1 });
      else c.n++;
    },
    reset: (reason) => resets.inc({ reason }),
    delay: (s) => delay.observe(s),
  };
  return m;
}

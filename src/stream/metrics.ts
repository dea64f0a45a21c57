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
  const sent = new Counter({ name: 'stream_messages_sent_total', help: 'Stream messages sent, by op.', labelNames: ['op'] as const, registers });
  const resets = new Counter({ name: 'stream_resets_total', help: 'Stream resets sent, by reason.', labelNames: ['reason'] as const, registers });
  const delay = new Histogram({
    name: 'stream_delivery_delay_seconds',
    help: 'Time from an ingest commit being seen to the last message it caused on a channel of a token being handed to the sockets.',
    buckets: DELAY_BUCKETS,
    registers,
  });
  for (const channel of ['bars', 'trades', 'prices', 'overview']) subscriptions.set({ channel }, 0);
  connections.set(0);
  // One child per op, made once: a labelled inc per message would hash the labels every time.
  const sentBy = new Map<string, { inc(): void }>();
  const m: StreamMetrics = {
    connections: (n) => connections.set(n),
    subscriptions: (channel, d) => subscriptions.inc({ channel }, d),
    sent: (op) => {
      let child = sentBy.get(op);
      if (child === undefined) sentBy.set(op, (child = sent.labels({ op })));
      child.inc();
    },
    reset: (reason) => resets.inc({ reason }),
    delay: (s) => delay.observe(s),
  };
  return m;
}

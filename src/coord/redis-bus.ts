/**
 * The instance-to-instance notices of the many-instance mode (docs/operations.md, Many
 * instances): after a commit, an instance publishes what changed (the tokens touched and whether
 * accounts changed, for caches), which keys were revoked (to close their streams) and which
 * tokens' streams have new data; every other instance hears it on one Redis channel.
 *
 * Redis pub/sub keeps nothing for a subscriber that is away, so a lost subscription can have
 * missed notices: the bus reports 'down' at once (the caller then serves no cached answer) and,
 * when the subscription is back, 'up' with `flush: true` (the caller drops every cached answer
 * before serving from its caches again). node-redis subscribes again before it reports ready, so
 * nothing published after the flush is missed. Publishing never waits for a reconnection: while
 * Redis is away publish() answers false at once (the offline queue is off).
 */
import { createClient } from 'redis';
import { decodeNotice, encodeNotice, type Bus, type BusOptions, type BusState } from '../store/port/bus.js';

export type { BusState, Notice } from '../store/port/bus.js';

export type RedisBusOptions = BusOptions & {
  url: string;
  /** Prefix of the channel name (instances of one deployment share it). */
  prefix?: string;
};

export type RedisBus = Bus;

/** Connects in the background: a bus made while Redis is away reports 'up' when it arrives. */
export function createRedisBus(opts: RedisBusOptions): RedisBus {
  const channel = `${opts.prefix ?? ''}notices`;
  const reconnectMs = opts.reconnectMs ?? 500;
  const socket = { reconnectStrategy: () => reconnectMs, connectTimeout: 2000 };
  const pub = createClient({ url: opts.url, socket, disableOfflineQueue: true });
  const sub = createClient({ url: opts.url, socket });
  let state: BusState = 'down';
  let closed = false;
  // The first ready comes before the first SUBSCRIBE: 'up' waits for that one.
  let subscribed = false;

  const set = (next: BusState, error?: unknown) => {
    if (next === state || closed) return;
    state = next;
    opts.onState?.(next, next === 'up' ? { flush: true } : { flush: false, error });
  };
  pub.on('error', () => undefined);
  sub.on('error', (err: unknown) => {
    if (!sub.isReady) set('down', err);
  });
  sub.on('reconnecting', () => set('down'));
  sub.on('end', () => set('down'));
  sub.on('ready', () => {
    if (subscribed) set('up');
  });

  const onMessage = (message: string) => {
    const decoded = decodeNotice(message);
    if (decoded === null) return opts.onMalformed?.();
    if (decoded.from !== opts.instanceId) opts.onNotice(decoded.notice, decoded.from);
  };

  // Subscribing before connecting: node-redis sends it as part of every (re)connection.
  const started = (async () => {
    await Promise.all([pub.connect(), sub.connect()]);
    await sub.subscribe(channel, onMessage);
    subscribed = true;
    if (sub.isReady) set('up');
  })();
  // A bus started while Redis is away keeps trying through the clients' reconnection.
  started.catch(() => undefined);

  return {
    async publish(notice) {
      if (!pub.isReady) return false;
      try {
        await pub.publish(channel, encodeNotice(opts.instanceId, notice));
        return true;
      } catch {
        return false;
      }
    },
    state: () => state,
    async close() {
      closed = true;
      // A connection still being attempted never settles while Redis is away: it is destroyed,
      // not waited for (a server stopping with Redis down must not hang).
      for (const c of [sub, pub]) {
        if (c.isReady) await c.close().catch(() => c.destroy());
        else if (c.isOpen) c.destroy();
      }
      await started.catch(() => undefined);
    },
  };
}

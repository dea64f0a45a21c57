/**
 * What the instances of one deployment share through a bus (docs/operations.md, Many
 * instances): after every commit this instance notifies (store.notifyChange: tokens, accounts),
 * the change goes out on the bus; a notice from another instance is fed to this store's change
 * listeners (response cache, history cache, symbol resolve cache, window and trader boards, the
 * key cache, the stream hub, the webhook worker) exactly as a local commit is, without going out
 * again. The bus is Redis pub/sub with REDIS_URL (src/coord/redis-bus.ts); without it, on a
 * PostgreSQL store, LISTEN/NOTIFY of that database (src/store/pg/pg-bus.ts); on SQLite alone there
 * is none (other processes' commits show through `PRAGMA data_version`).
 *
 * On PostgreSQL with REDIS_URL the instance also LISTENs on the database's own channel: a process
 * given only DATABASE_URL (the CLI as operators run it) announces its commits there, and its
 * revocations and ingests must reach every instance at the next request all the same
 * (docs/operations.md, Many instances). Instances with Redis publish on Redis only; the listener
 * only hears. Caches are served only while both are heard.
 *
 * A message on either channel that is not a notice is ignored and counted
 * (`bus_notices_malformed_total`), never read as "everything changed".
 *
 * While the bus is down this instance may have missed notices, so it serves no cached answer:
 * every event-loop turn that handles a request, and every 250 ms for the stream hub, it tells the
 * listeners "everything changed" (reads go through to the store, keys are checked in the store).
 * When the bus is back it flushes once more and caches again.
 *
 * With REDIS_URL the rate limits and the stream's connection caps are shared too
 * (shared-limits.ts): buckets and connection leases in Redis, this instance's own while Redis is
 * away. A revocation goes out as a `revoke` notice naming the keys. Without a bus none of this
 * exists: nothing is imported, wrapped or added to a request, and the app's limiter is the
 * in-memory one itself (on PostgreSQL without Redis too: limits are then per instance).
 */
import type { Logger } from 'pino';
import type { Counter, Gauge, Registry } from 'prom-client';
import type { Config } from '../config.js';
import type { Change } from '../store/port/handle.js';
import { engineOf, type AnyStore } from '../open-store.js';
import type { Bus, BusOptions, BusState, Notice } from '../store/port/bus.js';
import type { Middleware } from 'koa';
import type { Limiter } from '../limiter/limiter.js';
import type { AsyncLimiter } from '../limiter/redis-gcra.js';
import type { ConnectionCaps } from '../limiter/connection-caps.js';
import { createSharedLimits } from './shared-limits.js';

export type RedisState = 'off' | 'up' | 'down';

export type Coord = {
  /** 'off' without REDIS_URL; otherwise whether the Redis bus to the other instances is live. */
  redis(): RedisState;
  /** Which bus carries this instance's changes: 'off' without one, else whether it is live. */
  bus(): RedisState;
  /** Resolves once the notices of this process's commits so far are out (or given up). */
  drain(): Promise<void>;
  /** Resolves once the bus is up, or after `timeoutMs` (a start with Redis away goes on degraded). */
  ready(timeoutMs: number): Promise<RedisState>;
  /** Request middleware: no cached answer while the bus is down; a write answers after its notice is out. */
  middleware: Middleware | null;
  /**
   * The app's limiter over `memory`: `memory` itself without REDIS_URL; with it, buckets in Redis
   * shared by every instance (`prefix` names the kind of bucket), `memory`'s while Redis is away.
   */
  limiter(memory: Limiter, prefix?: string): Limiter | AsyncLimiter;
  /** The stream's connection caps across instances; null without REDIS_URL (the hub's own count). */
  caps: ConnectionCaps | null;
  close(): Promise<void>;
};

/** While down: how often the stream hub is told to look for other instances' commits. */
const DOWN_POLL_MS = 250;
/** While down: a warning this often. */
const DOWN_WARN_MS = 60_000;
/** The longest a write's answer waits for its notice to be published. */
const PUBLISH_WAIT_MS = 1000;
/** At start: the first warning when Redis has not answered by then. */
const FIRST_WARN_MS = 5_000;

/** Pub/sub channels are server-wide, whatever the database number: the channel names it. */
export const channelPrefix = (redisUrl: string): string => `svc:${new URL(redisUrl).pathname.replace(/^\//, '') || '0'}:`;

const EVERYTHING: Change = { tokens: 'all', accounts: true };

function toNotice(change: Change): Notice | null {
  // A revocation alone: the other instances drop their key caches and close the keys' streams.
  if (change.revoked !== undefined && change.revoked.length > 0 && change.tokens !== 'all' && change.tokens.size === 0) {
    return { type: 'revoke', keyIds: [...change.revoked] };
  }
  if (change.tokens !== 'all' && change.tokens.size === 0 && change.accounts !== true) return null;
  return { type: 'change', tokens: change.tokens === 'all' ? 'all' : [...change.tokens], accounts: change.accounts === true };
}

function fromNotice(notice: Notice): Change {
  switch (notice.type) {
    case 'change':
      return { tokens: notice.tokens === 'all' ? 'all' : new Set(notice.tokens), accounts: notice.accounts, remote: true };
    case 'revoke':
      // The key cache drops; the hub's own check closes the key's streams (within 250 ms).
      return { tokens: new Set(), accounts: true, revoked: notice.keyIds, remote: true };
  }
}

export function createCoord(deps: { config: Config; store: AnyStore; logger: Logger; registry: Registry }): Coord {
  const { config, store, logger } = deps;
  // Every metric carries the instance, so a scrape of several instances can be told apart.
  deps.registry.setDefaultLabels({ instance: config.instanceId });
  const redisUp = deps.registry.getSingleMetric('redis_up') as Gauge | undefined;
  redisUp?.set(0);
  const malformed = deps.registry.getSingleMetric('bus_notices_malformed_total') as Counter | undefined;
  const onMalformed = () => malformed?.inc();
  const redisUrl = config.redisUrl;
  // The store's own bus, where its engine has one (PostgreSQL's LISTEN/NOTIFY).
  const engine = engineOf(store);
  const storeBus = engine.openBus?.bind(engine);
  const openStoreBus: ((o: BusOptions) => Promise<Bus>) | null = storeBus === undefined ? null : (o) => storeBus(store, o);
  // Each bus's client is imported only when it is the one used.
  const openBus: ((o: BusOptions) => Promise<Bus>) | null =
    redisUrl !== null ? async (o) => (await import('./redis-bus.js')).createRedisBus({ ...o, url: redisUrl, prefix: channelPrefix(redisUrl) }) : openStoreBus;
  // With Redis on PostgreSQL: the database's channel too, where processes without REDIS_URL announce.
  const openListener: ((o: BusOptions) => Promise<Bus>) | null = redisUrl !== null ? openStoreBus : null;
  if (openBus === null) {
    return {
      redis: () => 'off',
      bus: () => 'off',
      drain: async () => {},
      ready: async () => 'off',
      middleware: null,
      limiter: (memory) => memory,
      caps: null,
      close: async () => {},
    };
  }
  const kind = redisUrl !== null ? 'redis' : 'postgres';
  // Log lines name the bus: `redis` (the field /healthz and the metrics use), or `bus` for LISTEN/NOTIFY.
  const name = kind === 'redis' ? 'redis' : 'the postgres change bus';
  const field = kind === 'redis' ? 'redis' : 'bus';
  // Limits and connection caps are shared through Redis only.
  const limits = redisUrl === null ? null : createSharedLimits({ url: redisUrl, instanceId: config.instanceId, logger });
  // The listeners as they were: what remote notices and flushes go through, so they never go out again.
  const local = store.notifyChange.bind(store);
  let bus: Bus | null = null;
  let listener: Bus | null = null;
  // Each channel's own state; `state` is 'up' only while every one is.
  let busState: BusState = 'down';
  let listenState: BusState = openListener === null ? 'up' : 'down';
  let state: BusState = 'down';
  let closed = false;
  const pending = new Set<Promise<unknown>>();
  const waiters = new Set<() => void>();
  let poll: NodeJS.Timeout | null = null;
  // An interval while down, or the one-shot first warning at start.
  let warn: NodeJS.Timeout | null = null;
  let flushedThisTurn = false;

  store.notifyChange = (change) => {
    local(change);
    const notice = toNotice(change);
    if (notice === null || bus === null) return;
    // A Redis that hangs must not hang the write's answer: after PUBLISH_WAIT_MS it answers anyway.
    let timer: NodeJS.Timeout | undefined;
    const sent = Promise.race([
      bus.publish(notice).catch(() => false),
      new Promise<boolean>((r) => (timer = setTimeout(() => r(false), PUBLISH_WAIT_MS))),
    ]).then((ok) => {
      clearTimeout(timer);
      if (!ok && state === 'up') lostNotice();
    });
    pending.add(sent);
    void sent.finally(() => pending.delete(sent));
  };

  let lastLostWarn = -Infinity;
  const lostNotice = () => {
    if (Date.now() - lastLostWarn < DOWN_WARN_MS) return;
    lastLostWarn = Date.now();
    logger.warn({ [field]: 'up' }, 'a change notice could not be published in time: other instances may serve older cached answers until their next flush');
  };

  const flush = () => {
    try {
      local(EVERYTHING);
    } catch (err) {
      logger.error({ err }, 'dropping cached answers failed');
    }
  };

  const stopTimers = () => {
    for (const t of [poll, warn]) if (t) clearInterval(t);
    poll = warn = null;
  };

  const onState = (next: 'up' | 'down', info: { flush: boolean; error?: unknown }) => {
    busState = next;
    if (kind === 'redis') redisUp?.set(next === 'up' ? 1 : 0);
    settle(info, next === 'down' ? 'bus' : null);
  };

  const onListenState = (next: 'up' | 'down', info: { flush: boolean; error?: unknown }) => {
    listenState = next;
    settle(info, next === 'down' ? 'listener' : null);
  };

  /** The combined state after one channel's change; `down` names the channel that went down. */
  const settle = (info: { flush: boolean; error?: unknown }, down: 'bus' | 'listener' | null) => {
    const next: BusState = busState === 'up' && listenState === 'up' ? 'up' : 'down';
    const was = state;
    state = next;
    if (next === 'up') {
      if (was === 'up') return;
      stopTimers();
      // Notices may have been missed while a subscription was away.
      if (info.flush) flush();
      logger.info({ [field]: 'up' }, `${name} is up: sharing caches, revocations and the stream with the other instances`);
      for (const w of [...waiters]) w();
      return;
    }
    if (down !== null && (was === 'up' || down === 'bus')) goDown(info.error, true, down);
  };

  const goDown = (error: unknown, sayNow: boolean, which: 'bus' | 'listener' = 'bus') => {
    const say = () =>
      logger.warn(
        { [which === 'listener' ? 'bus' : field]: 'down', err: error },
        which === 'listener'
          ? 'the postgres change bus is down: processes without REDIS_URL (the CLI) are not heard, so serving no cached answer, reading through to the store'
          : kind === 'redis'
            ? 'redis is down: serving no cached answer, reading through to the store; rate limits and stream connection caps are per instance'
            : `${name} is down: serving no cached answer, reading through to the store`,
      );
    stopTimers();
    if (closed) return;
    if (sayNow) {
      say();
      warn = setInterval(say, DOWN_WARN_MS);
    } else {
      // Before the first connection the first warning waits a little: Redis may just be slower than us.
      warn = setTimeout(() => goDown(error, true), FIRST_WARN_MS);
    }
    poll = setInterval(flush, DOWN_POLL_MS);
    warn.unref();
    poll.unref();
  };

  // Down until the first subscription: nothing cached is served before it.
  goDown(undefined, false);
  const onNotice = (notice: Notice) => local(fromNotice(notice));
  const started = Promise.all([
    openBus({ instanceId: config.instanceId, onNotice, onMalformed, onState }).then((b) => {
      if (closed) void b.close();
      else bus = b;
    }),
    openListener?.({ instanceId: config.instanceId, onNotice, onMalformed, onState: onListenState }).then((l) => {
      if (closed) void l.close();
      else listener = l;
    }),
  ]);

  const middleware: Middleware = async (_ctx, next) => {
    if (state === 'down' && !flushedThisTurn) {
      // Once per event-loop turn, as the store's own check of other processes' writes.
      flushedThisTurn = true;
      setImmediate(() => (flushedThisTurn = false));
      flush();
    }
    await next();
    // The notices of this request's commits are out before it answers (instant while Redis is away).
    if (pending.size > 0) await Promise.all([...pending]);
  };

  // Redis is up only when the bus and the limits' connection both are (the gauge follows the bus).
  const redis = (): Exclude<RedisState, 'off'> => (busState === 'up' && (limits === null || limits.ready()) ? 'up' : 'down');

  return {
    redis: () => (kind === 'redis' ? redis() : 'off'),
    bus: () => state,
    async drain() {
      while (pending.size > 0) await Promise.all([...pending]);
    },
    middleware,
    limiter: (memory, prefix = 'rl:') => (limits === null ? memory : limits.limiter(memory, prefix)),
    caps: limits?.caps ?? null,
    async ready(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      await Promise.all([started, limits?.loaded]);
      if (state !== 'up') {
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            waiters.delete(done);
            resolve();
          };
          const timer = setTimeout(done, timeoutMs);
          waiters.add(done);
        });
      }
      // The limits' own connection comes up about when the bus does.
      while (limits !== null && state === 'up' && !limits.ready() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      return kind === 'redis' ? redis() : state;
    },
    async close() {
      closed = true;
      stopTimers();
      store.notifyChange = local;
      await started.catch(() => undefined);
      await Promise.all([bus?.close(), listener?.close(), limits?.close()]);
    },
  };
}

/**
 * The port's operations area (docs/architecture.md, The store port): the meta key/value table,
 * the store's figures for /healthz and /metrics, the demo data's reads and writes, and the
 * events, subscriptions and webhook outbox of docs/api.md, Events, as every engine answers them.
 * Repos are written in their synchronous shape; callers see them as `Async<R>`
 * (src/store/port/repos.ts).
 */

export type MetaRepo = {
  get(key: string): string | undefined;
  set(key: string, value: string): void;
  /** The value under `key`, created once with `make()` when absent. */
  getOrCreate(key: string, make: () => string): string;
};

export type StatsRepo = {
  /** Bytes of the main database file (page_count * page_size; the WAL is separate). */
  sizeBytes: () => number;
  tokens: () => number;
  trades: () => number;
  /** Whether the store answers a query at all. */
  answers: () => boolean;
  /** Every page up to max_page_count is used and none is free: the next write that grows the file fails. */
  atPageLimit: () => boolean;
  /** Webhook deliveries waiting in the outbox; null in a store whose schema has no outbox. */
  pendingDeliveries: () => number | null;
};

export type FeedToken = { id: number; address: string; price: number; createdAt: number; lastTradeAt: number | null };
export type FeedMarket = { address: string; quoteSymbol: string; liquidityUsd: number };
export type RecentActivity = { trades: number; avgVolumeUsd: number | null; firstTime: number | null };
export type DemoRemoval = { tokens: number; markets: number; trades: number; holders: number; events: number };

export type DemoRepo = {
  /** Demo tokens that have a price (so the feed can move it). */
  feedTokens: () => FeedToken[];
  /** True while the store holds tokens and every one of them is a demo token. */
  holdsOnlyDemo(): boolean;
  /** How many tokens the store holds, and how many of them are real (not demo). */
  composition: () => { tokens: number; real: number };
  markets: (tokenId: number) => FeedMarket[];
  /** Trades since `since` (unix seconds): how many, their average value, the first one's time. */
  recent: (tokenId: number, since: number) => RecentActivity;
  /** SOL's USD price at the token's newest SOL-quoted trade, or undefined. */
  solPrice: (tokenId: number) => number | undefined;
  holderCount: (tokenId: number) => number;
  /** The owners of the token's `limit` largest holdings, largest first (ties by owner). */
  topHolders: (tokenId: number, limit: number) => string[];
  /** Deletes every demo token and every row that belongs to one; counts of what went. */
  removeDemo: () => DemoRemoval;
  /** The most recently traded token (demo or not): the one the start-up message links the embed to. */
  newestTraded: () => string | undefined;
  /** Ids of the demo tokens. */
  demoTokenIds: () => number[];
  /** The time of the oldest demo trade, or null. */
  oldestDemoTrade: () => number | null;
  /**
   * Deletes the demo trades before `to` (a multiple of 3600; callers go up from the oldest trade
   * an hour at a time, so each call is a short transaction) and the rollups that held only them;
   * answers the trades deleted. A day's rollup goes with the call that reaches the day's end.
   */
  pruneDemoBefore: (to: number) => number;
};

export type EventRow = { id: number; tenantId: string; token: string; createdAt: number; data: string };

export type EventsRepo = {
  /** Inserts an event; returns its id. */
  insert: (tenantId: string, token: string, createdAt: number, data: string) => number;
  /** The tenant's events after `after` (an id), created at or after `since`, oldest first. */
  page: (tenantId: string, after: number, since: number, limit: number) => EventRow[];
  /** Deletes at most `limit` events created before `before`; returns how many went. */
  prune: (before: number, limit: number) => number;
  count: (tenantId: string) => number;
};

/** S of docs/api.md, Subscriptions, events, ingest. */
export type Subscription = { id: string; address: string; webhookUrl: string | null; createdAt: number };

/** A subscriber of a token, as the events hook needs it. */
export type Subscriber = { subscriptionId: string; tenantId: string; webhookUrl: string | null };

export type SubscriptionsRepo = {
  find: (tenantId: string, address: string) => Subscription | undefined;
  list: (tenantId: string) => Subscription[];
  count: (tenantId: string) => number;
  insert: (row: Subscription & { tenantId: string }) => undefined;
  setWebhook: (id: string, url: string | null) => undefined;
  remove: (id: string) => boolean;
  /** Whether any tenant subscribes to anything (ingest skips events when none does). */
  any: () => boolean;
  /** The subscribers of a token address, in tenant order. */
  subscribers: (address: string) => Subscriber[];
  /** The plan's cap for a tenant; undefined when the tenant does not exist. */
  maxSubscriptions: (tenantId: string) => number | undefined;
  webhookSecret: (tenantId: string) => string | undefined;
  insertWebhookSecret: (tenantId: string, secret: string, now: number) => undefined;
  /** Runs `fn` in one IMMEDIATE transaction, so a count and the insert it allows are atomic. */
  inTransaction: <T>(fn: () => T) => T;
};

/** A delivery that is due, with what sending it needs. */
export type DueDelivery = {
  id: number;
  attempts: number;
  dueAt: number;
  deadlineAt: number;
  eventId: number;
  tenantId: string;
  token: string;
  createdAt: number;
  data: string;
  webhookUrl: string | null;
  secret: string | null;
};

export type DeliveryRow = {
  id: number;
  eventId: number;
  subscriptionId: string;
  status: 'pending' | 'delivered' | 'failed' | 'cancelled';
  attempts: number;
  dueAt: number;
  deadlineAt: number;
  lastStatus: number | null;
  lastError: string | null;
  doneAt: number | null;
};

/** What an attempt of a delivery ended with. */
export type Attempt = { id: number; attempts: number; lastStatus: number | null; lastError: string | null };

export type WebhookOutboxRepo = {
  enqueue: (eventId: number, subscriptionId: string, dueAt: number, deadlineAt: number) => undefined;
  /** Due deliveries, oldest first, leaving out the tenants in `skipTenants` (those at their in-flight cap). */
  due: (now: number, limit: number, skipTenants?: readonly string[]) => DueDelivery[];
  /** Takes a due delivery for one attempt: true when this caller got it (nobody else did). */
  claim: (id: number, dueAt: number, leaseUntil: number) => boolean;
  delivered: (o: Attempt & { now: number }) => undefined;
  retry: (o: Attempt & { dueAt: number }) => undefined;
  finish: (o: Attempt & { status: 'failed' | 'cancelled'; now: number }) => undefined;
  byEvent: (eventId: number) => DeliveryRow[];
  pendingCount: () => number;
};

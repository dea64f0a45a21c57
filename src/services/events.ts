/**
 * Events (docs/api.md, Subscriptions, events, ingest): the ingest hook that writes them, and the keyset-paged reader
 * behind GET /v1/events.
 *
 * For each ingest transaction and each registered token it added trades to, every tenant
 * registered to that token gets one event per 1000 trades (in trade order), and, when its
 * subscription has a webhook URL, one outbox row per event. All of it is written in the ingest
 * transaction, so an event exists exactly when its trades do.
 *
 * The events cursor (src/domain/cursor.ts) carries the last event id returned, signed and bound
 * to the tenant; any other string is refused. Event ids only grow (AUTOINCREMENT) and are assigned under SQLite's write lock, so
 * a walk by id never skips or repeats an event.
 */
import { randomBytes } from 'node:crypto';
import type { Db } from '../store/db.js';
import type { Clock } from '../domain/clock.js';
import { nowSeconds } from '../domain/clock.js';
import { decodeEventCursor, encodeEventCursor } from '../domain/cursor.js';
import { createEventsRepo, type EventRow } from '../store/events-repo.js';
import { createSubscriptionsRepo, type Subscriber } from '../store/subscriptions-repo.js';
import type pg from 'pg';
import { createPgEventsRepo } from '../store/pg/events-repo.js';
import { createPgSubscriptionsRepo } from '../store/pg/subscriptions-repo.js';
import { createPgTradesRepo } from '../store/pg/trades-repo.js';
import { createPgWebhookOutboxRepo } from '../store/pg/webhook-outbox-repo.js';
import { createWebhookOutboxRepo } from '../store/webhook-outbox-repo.js';
import { createTradesRepo, toTradeJson, type TradeJson } from '../store/trades-repo.js';
import type { IngestHook, InsertedTrade } from './ingest.js';
import type { Repos } from '../store/port/repos.js';

/** Events are kept this long (seconds); older ones are not returned and are pruned. */
export const EVENT_RETENTION_SECONDS = 7 * 86_400;
/** At most this many trades in one event. */
export const TRADES_PER_EVENT = 1000;
/** Webhooks are retried for this long after the event (ms). */
export const DELIVERY_WINDOW_MS = 24 * 3600 * 1000;
/** A page of events stops early once its data passes this size (at least one event is returned). */
const MAX_PAGE_BYTES = 4 * 1024 * 1024;

/** The trade shape T of docs/api.md, Token reads. */
export type EventTrade = TradeJson;

export type TradesEvent = { id: string; type: 'trades'; token: string; createdAt: number; data: { trades: EventTrade[] } };

export const eventId = (id: number): string => `evt_${id}`;

/**
 * The JSON of an event, built the same way every time (webhook signatures cover these bytes).
 * `data` is stored already serialised.
 */
export function eventJson(row: Pick<EventRow, 'id' | 'token' | 'createdAt' | 'data'>): string {
  return `{"id":${JSON.stringify(eventId(row.id))},"type":"trades","token":${JSON.stringify(row.token)},"createdAt":${row.createdAt},"data":${row.data}}`;
}

const byTradeOrder = (a: InsertedTrade, b: InsertedTrade) => a.blockTime - b.blockTime || a.id - b.id;

/** One event to write: its tenant, token and data, and the subscription whose webhook (if any) delivers it. */
type NewEvent = { tenantId: string; token: string; data: string; subscriptionId: string; webhookUrl: string | null };

/** The batch's trades of each token, in the batch's order of tokens. */
function byToken(inserted: readonly InsertedTrade[]): Map<string, InsertedTrade[]> {
  const out = new Map<string, InsertedTrade[]>();
  for (const t of inserted) {
    const list = out.get(t.token);
    if (list) list.push(t);
    else out.set(t.token, [t]);
  }
  return out;
}

/** The events of one token's trades (sorted here into trade order), one per TRADES_PER_EVENT trades and subscriber. */
function eventsOf(token: string, list: InsertedTrade[], subscribers: readonly Subscriber[], dex: ReadonlyMap<string, string | null>): NewEvent[] {
  const out: NewEvent[] = [];
  list.sort(byTradeOrder);
  for (let i = 0; i < list.length; i += TRADES_PER_EVENT) {
    const chunk: EventTrade[] = list.slice(i, i + TRADES_PER_EVENT).map((t) => toTradeJson({ ...t, dex: dex.get(t.market) ?? null }));
    const data = JSON.stringify({ trades: chunk });
    for (const s of subscribers) out.push({ tenantId: s.tenantId, token, data, subscriptionId: s.subscriptionId, webhookUrl: s.webhookUrl });
  }
  return out;
}

/**
 * The ingest hook that writes events and queues their webhooks, on either engine: on SQLite with
 * the store's statements (synchronously, inside its transaction), on PostgreSQL with the repos
 * built on the ingest's transaction client (docs/architecture.md, The ingest boundary), so the
 * events are numbered in commit order and exist exactly when their trades do.
 */
export function createEventsHook(deps: { db?: Db; clock: Clock }): IngestHook {
  let sqlite: ReturnType<typeof sqliteRepos> | undefined;
  return ({ trades: inserted, now }, tx) => {
    if (tx.engine === 'postgres') return pgEvents(deps.clock, tx.client, inserted, now);
    if (deps.db === undefined) throw new Error('the events hook was built without the SQLite connection it is called with');
    const { subscriptions, events, outbox, trades } = (sqlite ??= sqliteRepos(deps.db));
    if (inserted.length === 0 || !subscriptions.any()) return undefined;
    const dexes = new Map<string, string | null>();
    const nowMs = deps.clock.now();
    for (const [token, list] of byToken(inserted)) {
      const subscribers = subscriptions.subscribers(token);
      if (subscribers.length === 0) continue;
      for (const t of list) if (!dexes.has(t.market)) dexes.set(t.market, trades.dexOf(t.market));
      for (const e of eventsOf(token, list, subscribers, dexes)) {
        const id = events.insert(e.tenantId, token, now, e.data);
        if (e.webhookUrl !== null) outbox.enqueue(id, e.subscriptionId, nowMs, nowMs + DELIVERY_WINDOW_MS);
      }
    }
    return undefined;
  };
}

const sqliteRepos = (db: Db) => ({
  subscriptions: createSubscriptionsRepo(db),
  events: createEventsRepo(db),
  outbox: createWebhookOutboxRepo(db),
  trades: createTradesRepo(db),
});

/** The events hook's writes on PostgreSQL (the same rows as the SQLite branch above). */
async function pgEvents(clock: Clock, client: pg.ClientBase, inserted: readonly InsertedTrade[], now: number): Promise<void> {
  const subscriptions = createPgSubscriptionsRepo(client);
  if (inserted.length === 0 || !(await subscriptions.any())) return;
  const events = createPgEventsRepo(client);
  const outbox = createPgWebhookOutboxRepo(client);
  const trades = createPgTradesRepo(client);
  const dexes = new Map<string, string | null>();
  const nowMs = clock.now();
  for (const [token, list] of byToken(inserted)) {
    const subscribers = await subscriptions.subscribers(token);
    if (subscribers.length === 0) continue;
    for (const t of list) if (!dexes.has(t.market)) dexes.set(t.market, await trades.dexOf(t.market));
    for (const e of eventsOf(token, list, subscribers, dexes)) {
      const id = await events.insert(e.tenantId, token, now, e.data);
      if (e.webhookUrl !== null) await outbox.enqueue(id, e.subscriptionId, nowMs, nowMs + DELIVERY_WINDOW_MS);
    }
  }
}

/** A cursor that this server did not issue for this tenant. */
export class EventCursorError extends Error {}

export type EventsPage = { events: TradesEvent[]; nextCursor: string };

/** The events feed and pruning, on `repos.events` (either engine). */
export function createEvents(deps: { clock: Clock; repos: Pick<Repos, 'events' | 'meta'> }) {
  const repo = deps.repos.events;
  // The secret that signs event cursors, read (or made) once and kept for the process.
  let secret: Promise<Buffer> | null = null;
  const key = (): Promise<Buffer> =>
    (secret ??= deps.repos.meta
      .getOrCreate('cursor_secret', () => randomBytes(32).toString('hex'))
      .then(
        (hex) => Buffer.from(hex, 'hex'),
        (err: unknown) => {
          secret = null; // a store that failed now may answer the next request
          throw err;
        },
      ));

  return {
    /**
     * The tenant's events after `cursor` (from the oldest kept without one), oldest first, at most
     * `limit`. `nextCursor` is where to resume; an empty page means caught up.
     * Throws EventCursorError for a cursor not issued to this tenant.
     */
    async page(tenantId: string, cursor: string | undefined, limit: number): Promise<EventsPage> {
      const k = await key();
      const after = cursor === undefined ? 0 : decodeEventCursor(k, tenantId, cursor);
      if (after === null) throw new EventCursorError('cursor is not valid for this account');
      const since = nowSeconds(deps.clock) - EVENT_RETENTION_SECONDS;
      const rows = await repo.page(tenantId, after, since, limit);
      const events: TradesEvent[] = [];
      let bytes = 0;
      let last = after;
      for (const row of rows) {
        if (events.length > 0 && bytes + row.data.length > MAX_PAGE_BYTES) break;
        bytes += row.data.length;
        events.push({ id: eventId(row.id), type: 'trades', token: row.token, createdAt: row.createdAt, data: JSON.parse(row.data) });
        last = row.id;
      }
      return { events, nextCursor: encodeEventCursor(k, tenantId, last) };
    },

    /** Deletes events older than the retention (in batches); returns how many went. */
    async prune(batch = 5000): Promise<number> {
      const before = nowSeconds(deps.clock) - EVENT_RETENTION_SECONDS;
      let total = 0;
      for (;;) {
        const n = await repo.prune(before, batch);
        total += n;
        if (n < batch) return total;
      }
    },
  };
}

export type Events = ReturnType<typeof createEvents>;

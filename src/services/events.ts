/**
 * Events (docs/api.md, Subscriptions, events, ingest): the ingest hook that writes them, the
 * retract hook that writes `trades_removed` events (each written once for both engines), and the
 * keyset-paged reader behind GET /v1/events.
 *
 * For each ingest transaction and each registered token it added trades to, every tenant
 * registered to that token gets one event per 1000 trades (in trade order), and, when its
 * subscription has a webhook URL, one outbox row per event. All of it is written in the ingest
 * transaction, so an event exists exactly when its trades do. A retraction (docs/indexer.md,
 * Reorgs) does the same for the trades it takes out: one `trades_removed` event per 1000 of a
 * registered token's removed trades and tenant, written in the retraction's transaction.
 *
 * The events cursor (src/domain/cursor.ts) carries the last event id returned, signed and bound
 * to the tenant; any other string is refused. Event ids only grow (AUTOINCREMENT) and are assigned under SQLite's write lock, so
 * a walk by id never skips or repeats an event.
 *
 * Chains (docs/chains.md): an event's token is a store key, so subscriptions and events are keyed
 * by chain as they are by address. With several chains an event shows the plain `token` and its
 * `chain`, and its trades carry `chain` (tradeOnChain, applied as the event is written); with one
 * chain every byte is as before chains.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../domain/clock.js';
import { nowSeconds } from '../domain/clock.js';
import { decodeEventCursor, encodeEventCursor } from '../domain/cursor.js';
import type { EventRow } from '../store/port/operations.js';
import { toTradeJson, tradeOnChain, type TradeJson } from '../domain/trade-json.js';
import { addressFields, oneChain, type Chains } from '../domain/chains.js';
import type { EventSubscriber as Subscriber, EventsWriter, IngestHook, IngestTx, InsertedTrade } from '../store/port/ingest.js';
import { call, drive, type Steps } from './ingest-steps.js';
import type { Repos } from '../store/port/repos.js';
import type { RemovedTrade, RetractHook } from '../store/port/retract.js';

/** Events are kept this long (seconds); older ones are not returned and are pruned. */
export const EVENT_RETENTION_SECONDS = 7 * 86_400;
/** At most this many trades in one event. */
export const TRADES_PER_EVENT = 1000;
/** Webhooks are retried for this long after the event (ms). */
export const DELIVERY_WINDOW_MS = 24 * 3600 * 1000;
/** A page of events stops early once its data passes this size (at least one event is returned). */
const MAX_PAGE_BYTES = 4 * 1024 * 1024;

/** The trade shape T of docs/api.md, Token reads. */
export type EventTrade = TradeJson & { chain?: string };

/** An event's token: its plain address, and its chain when the deployment serves several. */
type EventToken = { token: string; chain?: string };

export type TradesEvent = { id: string; type: 'trades' } & EventToken & { createdAt: number; data: { trades: EventTrade[] } };

/** A removed trade as a `trades_removed` event names it: its record number and identity. */
export type RemovedTradeRef = { id: number; signature: string; index: number };

export type TradesRemovedEvent = { id: string; type: 'trades_removed' } & EventToken & { createdAt: number; data: { trades: RemovedTradeRef[] } };

/** An event of the feed (E): trades an ingest added, or trades a retraction took back out. */
export type Event = TradesEvent | TradesRemovedEvent;

export const eventId = (id: number): string => `evt_${id}`;

/**
 * How an event's type and data are kept in its row's one `data` column, which older stores hold
 * as the JSON of a `trades` event's data (`{"trades":[...]}`, as JSON.stringify writes it, so it
 * always begins so). Any other type is kept as `{"type":T,"data":D}`: no migration, and every row
 * already stored reads as it did.
 */
const TYPED = '{"type":"';
const DATA = '","data":';

/** The stored form of an event of `type` whose data serialises to `data`. */
export function storedData(type: Event['type'], data: string): string {
  return type === 'trades' ? data : `${TYPED}${type}${DATA}${data}}`;
}

/** The type of a stored event and its data's JSON text (the very bytes stored), from its `data` column. */
export function typeAndData(stored: string): { type: Event['type']; data: string } {
  if (!stored.startsWith(TYPED)) return { type: 'trades', data: stored };
  const end = stored.indexOf(DATA, TYPED.length);
  const type = stored.slice(TYPED.length, end);
  if (type !== 'trades_removed') throw new Error(`an event of unknown type ${JSON.stringify(type)} is stored`);
  return { type, data: stored.slice(end + DATA.length, -1) };
}

const ONE_CHAIN = oneChain();

/** An event's `token` (and `chain`, with several chains) from its row's token key. */
function eventToken(key: string, chains: Chains): EventToken {
  const { address, chain } = addressFields(key, chains);
  return chain === undefined ? { token: address } : { token: address, chain };
}

/**
 * The JSON of an event, built the same way every time (webhook signatures cover these bytes).
 * `data` is the column as stored (see storedData); `chain` follows `token` only when `chains`
 * are several.
 */
export function eventJson(row: Pick<EventRow, 'id' | 'token' | 'createdAt' | 'data'>, chains: Chains = ONE_CHAIN): string {
  const { type, data } = typeAndData(row.data);
  const t = eventToken(row.token, chains);
  const chain = t.chain === undefined ? '' : `,"chain":${JSON.stringify(t.chain)}`;
  return `{"id":${JSON.stringify(eventId(row.id))},"type":${JSON.stringify(type)},"token":${JSON.stringify(t.token)}${chain},"createdAt":${row.createdAt},"data":${data}}`;
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
function eventsOf(
  token: string,
  list: InsertedTrade[],
  subscribers: readonly Subscriber[],
  dex: ReadonlyMap<string, string | null>,
  chains: Chains,
): NewEvent[] {
  const out: NewEvent[] = [];
  list.sort(byTradeOrder);
  for (let i = 0; i < list.length; i += TRADES_PER_EVENT) {
    const chunk: EventTrade[] = list.slice(i, i + TRADES_PER_EVENT).map((t) => tradeOnChain(toTradeJson({ ...t, dex: dex.get(t.market) ?? null }), chains));
    const data = JSON.stringify({ trades: chunk });
    for (const s of subscribers) out.push({ tenantId: s.tenantId, token, data, subscriptionId: s.subscriptionId, webhookUrl: s.webhookUrl });
  }
  return out;
}

/**
 * The ingest hook that writes events and queues their webhooks, on either engine: written once,
 * its reads and writes those of `events(tx)`, the engine's (src/store/port/ingest.ts,
 * EventsWriter), answered at once inside SQLite's transaction and awaited on PostgreSQL's
 * (docs/architecture.md, The ingest boundary), so the events are numbered in commit order and
 * exist exactly when their trades do. `chains`: the deployment's, for how the trades show their
 * chain (default: one chain).
 */
export function createEventsHook(deps: { events: (tx: IngestTx) => EventsWriter; clock: Clock; chains?: Chains }): IngestHook {
  const chains = deps.chains ?? ONE_CHAIN;
  return ({ trades, now }, tx) => (trades.length === 0 ? undefined : drive(tx, eventSteps(deps.events(tx), deps.clock, chains, trades, now)));
}

function* eventSteps(w: EventsWriter, clock: Clock, chains: Chains, inserted: readonly InsertedTrade[], now: number): Steps<void> {
  if (!(yield* call(w.any()))) return;
  const dexes = new Map<string, string | null>();
  const nowMs = clock.now();
  for (const [token, list] of byToken(inserted)) {
    const subscribers = yield* call(w.subscribers(token));
    if (subscribers.length === 0) continue;
    for (const t of list) if (!dexes.has(t.market)) dexes.set(t.market, yield* call(w.dexOf(t.market)));
    for (const e of eventsOf(token, list, subscribers, dexes, chains)) {
      const id = yield* call(w.insert(e.tenantId, token, now, e.data));
      if (e.webhookUrl !== null) yield* call(w.enqueue(id, e.subscriptionId, nowMs, nowMs + DELIVERY_WINDOW_MS));
    }
  }
}

/** The removed trades of each token (by address), ascending by id, in the order tokens come. */
function removedByToken(removed: readonly RemovedTrade[]): Map<string, RemovedTradeRef[]> {
  const out = new Map<string, RemovedTradeRef[]>();
  for (const t of removed) {
    const ref = { id: t.id, signature: t.signature, index: t.index };
    const list = out.get(t.token);
    if (list) list.push(ref);
    else out.set(t.token, [ref]);
  }
  for (const list of out.values()) list.sort((a, b) => a.id - b.id);
  return out;
}

/** The `trades_removed` events of one token's removed trades, one per TRADES_PER_EVENT trades and subscriber. */
function removalEventsOf(token: string, list: readonly RemovedTradeRef[], subscribers: readonly Subscriber[]): NewEvent[] {
  const out: NewEvent[] = [];
  for (let i = 0; i < list.length; i += TRADES_PER_EVENT) {
    const data = storedData('trades_removed', JSON.stringify({ trades: list.slice(i, i + TRADES_PER_EVENT) }));
    for (const s of subscribers) out.push({ tenantId: s.tenantId, token, data, subscriptionId: s.subscriptionId, webhookUrl: s.webhookUrl });
  }
  return out;
}

/**
 * The retract hook that writes `trades_removed` events and queues their webhooks (docs/api.md,
 * Events), on either engine, inside the retraction's transaction as the events ingest hook is
 * inside the ingest's: an event exists exactly when its trades are gone. A tenant registered to a
 * token that lost trades gets one event per 1000 of them, delivered, signed and retried like any.
 */
export function createRetractEventsHook(deps: { events: (tx: IngestTx) => EventsWriter; clock: Clock }): RetractHook {
  return ({ trades, now }, tx) => (trades.length === 0 ? undefined : drive(tx, removalEventSteps(deps.events(tx), deps.clock, trades, now)));
}

function* removalEventSteps(w: EventsWriter, clock: Clock, removed: readonly RemovedTrade[], now: number): Steps<void> {
  if (!(yield* call(w.any()))) return;
  const nowMs = clock.now();
  for (const [token, list] of removedByToken(removed)) {
    const subscribers = yield* call(w.subscribers(token));
    for (const e of removalEventsOf(token, list, subscribers)) {
      const id = yield* call(w.insert(e.tenantId, token, now, e.data));
      if (e.webhookUrl !== null) yield* call(w.enqueue(id, e.subscriptionId, nowMs, nowMs + DELIVERY_WINDOW_MS));
    }
  }
}

/** A cursor that this server did not issue for this tenant. */
export class EventCursorError extends Error {}

export type EventsPage = { events: Event[]; nextCursor: string };

/** The events feed and pruning, on `repos.events` (either engine); `config.chains` for how events name their token. */
export function createEvents(deps: { clock: Clock; repos: Pick<Repos, 'events' | 'meta'>; config?: { chains?: Chains } }) {
  const repo = deps.repos.events;
  const chains = deps.config?.chains ?? ONE_CHAIN;
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
      const events: Event[] = [];
      let bytes = 0;
      let last = after;
      for (const row of rows) {
        if (events.length > 0 && bytes + row.data.length > MAX_PAGE_BYTES) break;
        bytes += row.data.length;
        const { type, data } = typeAndData(row.data);
        events.push({ id: eventId(row.id), type, ...eventToken(row.token, chains), createdAt: row.createdAt, data: JSON.parse(data) } as Event);
        last = row.id;
      }
      return { events, nextCursor: encodeEventCursor(k, tenantId, last) };
    },

    /** The JSON of a stored event as this deployment shows it (what its webhook POSTs; see eventJson). */
    json: (row: Pick<EventRow, 'id' | 'token' | 'createdAt' | 'data'>): string => eventJson(row, chains),

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

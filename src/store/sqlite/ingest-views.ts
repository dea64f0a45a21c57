/**
 * The SQLite appliers of the rows ingest derives for its views (src/store/port/ingest.ts,
 * IngestViews): each runs its prepared statements at once on the one connection, inside the
 * ingest's write transaction.
 */
import type { Db } from './db.js';
import type { EventsWriter, IngestViews } from '../port/ingest.js';
import { readViewsWriter } from './read-views-repo.js';
import { discoveryHook } from './token-changes-repo.js';
import { tradeCommitsWriter } from './stream-repo.js';
import { createSubscriptionsRepo } from './subscriptions-repo.js';
import { createEventsRepo } from './events-repo.js';
import { createWebhookOutboxRepo } from './webhook-outbox-repo.js';
import { createTradesRepo } from './trades-repo.js';

/** The events' reads and writes: the store's statements. */
export function sqliteEventsWriter(db: Db): EventsWriter {
  const subscriptions = createSubscriptionsRepo(db);
  const events = createEventsRepo(db);
  const outbox = createWebhookOutboxRepo(db);
  const trades = createTradesRepo(db);
  return {
    any: () => subscriptions.any(),
    subscribers: (token) => subscriptions.subscribers(token),
    dexOf: (market) => trades.dexOf(market),
    insert: (tenantId, token, createdAt, data) => events.insert(tenantId, token, createdAt, data),
    enqueue: (eventId, subscriptionId, dueAt, deadlineAt) => outbox.enqueue(eventId, subscriptionId, dueAt, deadlineAt),
  };
}

export function sqliteIngestViews(db: Db): IngestViews {
  const readViews = readViewsWriter(db);
  const discovery = discoveryHook(db);
  const commits = tradeCommitsWriter(db);
  // Built at the first event: its statements are not needed before a tenant subscribes.
  let events: EventsWriter | undefined;
  return {
    readViews: (_tx, rows) => readViews(rows),
    tradeCommit: (_tx, step) => commits(step),
    discovery: (_tx, batch) => discovery(batch),
    events: () => (events ??= sqliteEventsWriter(db)),
  };
}

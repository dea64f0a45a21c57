/**
 * The PostgreSQL appliers of the rows ingest derives for its views (src/store/port/ingest.ts,
 * IngestViews): the twins of src/store/sqlite/ingest-views.ts, each on the client of the ingest's
 * inWriteOrder() transaction, so numbered rows (events, the token change log) follow commit order.
 */
import type pg from 'pg';
import type { EventsWriter, IngestViews } from '../port/ingest.js';
import { clientOf } from './ingest-tx.js';
import { pgWriteReadViews } from './read-views.js';
import { pgDiscoveryHook } from './discovery-hook.js';
import { pgWriteTradeCommit } from './stream-repo.js';
import { createPgSubscriptionsRepo } from './subscriptions-repo.js';
import { createPgEventsRepo } from './events-repo.js';
import { createPgWebhookOutboxRepo } from './webhook-outbox-repo.js';
import { createPgTradesRepo } from './trades-repo.js';

/** The events' reads and writes: the repos on the transaction's client. */
export function pgEventsWriter(client: pg.ClientBase): EventsWriter {
  const subscriptions = createPgSubscriptionsRepo(client);
  const events = createPgEventsRepo(client);
  const outbox = createPgWebhookOutboxRepo(client);
  const trades = createPgTradesRepo(client);
  return {
    any: () => subscriptions.any(),
    subscribers: (token) => subscriptions.subscribers(token),
    dexOf: (market) => trades.dexOf(market),
    insert: (tenantId, token, createdAt, data) => events.insert(tenantId, token, createdAt, data),
    enqueue: async (eventId, subscriptionId, dueAt, deadlineAt) => {
      await outbox.enqueue(eventId, subscriptionId, dueAt, deadlineAt);
    },
  };
}

export function pgIngestViews(): IngestViews {
  const discovery = pgDiscoveryHook();
  return {
    readViews: (tx, rows) => pgWriteReadViews(clientOf(tx), rows),
    tradeCommit: (tx, step) => pgWriteTradeCommit(clientOf(tx), step),
    discovery: (tx, batch) => discovery(batch, tx),
    events: (tx) => pgEventsWriter(clientOf(tx)),
  };
}

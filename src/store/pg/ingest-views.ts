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
import { carrying } from './deferred-writes.js';

/** Subscribed addresses read at once by the events writer's first call; beyond it, each token is asked. */
export const SUBSCRIBED_AT_ONCE = 1000;

/**
 * The events' reads and writes: the repos on the transaction's client. The first call, `any()`,
 * reads the subscribed addresses too (up to SUBSCRIBED_AT_ONCE of them), so the hook's question
 * for each token of the batch costs a round trip only for the tokens someone subscribes to:
 * a batch over 50 tokens of which one is subscribed asked 50 times, now once.
 */
export function pgEventsWriter(client: pg.ClientBase): EventsWriter {
  const subscriptions = createPgSubscriptionsRepo(client);
  const events = createPgEventsRepo(client);
  const outbox = createPgWebhookOutboxRepo(client);
  const trades = createPgTradesRepo(client);
  let subscribed: Set<string> | null = null;
  return {
    async any() {
      // Carries the writes waiting for the next statement (src/store/pg/deferred-writes.ts): none writes subscriptions.
      const found = await carrying<{ address: string }>(client, [], 'SELECT DISTINCT address FROM subscriptions LIMIT $1', [SUBSCRIBED_AT_ONCE + 1]);
      subscribed = found.length <= SUBSCRIBED_AT_ONCE ? new Set(found.map((r) => r.address)) : null;
      return found.length > 0;
    },
    subscribers: (token) => (subscribed !== null && !subscribed.has(token) ? [] : subscriptions.subscribers(token)),
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

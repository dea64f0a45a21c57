-- Subscriptions, events and the webhook outbox (docs/api.md, Subscriptions, events, ingest).

-- A tenant's registration of a token (the token need not be in the store yet).
CREATE TABLE subscriptions (
  id          TEXT PRIMARY KEY,
  tenant_id   TEXT NOT NULL REFERENCES tenants(id),
  address     TEXT NOT NULL,
  webhook_url TEXT,
  created_at  INTEGER NOT NULL,
  UNIQUE (tenant_id, address)
);
CREATE INDEX subscriptions_address ON subscriptions(address);

-- One signing secret per tenant, made the first time the tenant sets a webhook. Kept as is,
-- because signing needs it.
CREATE TABLE webhook_secrets (
  tenant_id  TEXT PRIMARY KEY REFERENCES tenants(id),
  secret     TEXT NOT NULL,
  created_at INTEGER NOT NULL
) WITHOUT ROWID;

-- AUTOINCREMENT: pruning deletes the oldest rows, and an id must never be handed out twice,
-- because the events cursor is a position in id order.
-- data is the JSON of the event's `data` field ({"trades":[...]}); the event's JSON is built from
-- these columns the same way every time, so every retry of a webhook sends the same bytes.
CREATE TABLE events (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id  TEXT NOT NULL REFERENCES tenants(id),
  token      TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  data       TEXT NOT NULL
);
CREATE INDEX events_tenant ON events(tenant_id, id);
CREATE INDEX events_created ON events(created_at);

-- The webhook outbox: one row per event to deliver. Times in milliseconds of the service clock.
-- status: pending (due_at is the next attempt, or the end of a claim while one is in flight),
-- delivered (a 2xx was received), failed (the 24 h retry window ran out), cancelled (the
-- subscription's webhook URL was removed before the event could be delivered).
-- Removing a subscription cancels its deliveries (cascade); pruning an event drops its row.
CREATE TABLE webhook_deliveries (
  id              INTEGER PRIMARY KEY,
  event_id        INTEGER NOT NULL REFERENCES events(id) ON DELETE CASCADE,
  subscription_id TEXT NOT NULL REFERENCES subscriptions(id) ON DELETE CASCADE,
  status          TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed', 'cancelled')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  due_at          INTEGER NOT NULL,
  deadline_at     INTEGER NOT NULL,
  last_status     INTEGER,
  last_error      TEXT,
  done_at         INTEGER
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(due_at, id) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_event ON webhook_deliveries(event_id);
CREATE INDEX webhook_deliveries_subscription ON webhook_deliveries(subscription_id);

-- Tenants, plans and API keys (docs/api.md, Authentication and keys). Plans are seeded here and editable in the store.

CREATE TABLE plans (
  name                TEXT PRIMARY KEY,
  requests_per_minute INTEGER NOT NULL,
  max_keys            INTEGER NOT NULL,
  max_subscriptions   INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO plans (name, requests_per_minute, max_keys, max_subscriptions) VALUES
  ('free', 300, 3, 10),
  ('pro', 3000, 20, 500),
  ('enterprise', 30000, 100, 10000);

CREATE TABLE tenants (
  id            TEXT PRIMARY KEY,
  name          TEXT NOT NULL,
  plan          TEXT NOT NULL REFERENCES plans(name),
  email         TEXT UNIQUE COLLATE NOCASE,
  password_hash TEXT,
  created_at    INTEGER NOT NULL
);

-- Only the SHA-256 of a secret is kept; lookups go by hash.
CREATE TABLE api_keys (
  id           TEXT PRIMARY KEY,
  tenant_id    TEXT NOT NULL REFERENCES tenants(id),
  name         TEXT,
  hash         BLOB NOT NULL UNIQUE,
  prefix       TEXT NOT NULL,
  last4        TEXT NOT NULL,
  scopes       TEXT NOT NULL,
  created_at   INTEGER NOT NULL,
  last_used_at INTEGER,
  expires_at   INTEGER,
  revoked_at   INTEGER
);
CREATE INDEX api_keys_tenant ON api_keys(tenant_id, created_at, id);

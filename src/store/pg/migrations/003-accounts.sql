-- Tenants, plans, API keys, dashboard sessions and the sign-in throttle (SQLite migrations 002,
-- 005 and 007) as they stand after all of them. Plans are seeded as on SQLite.

CREATE TABLE plans (
  name                text COLLATE "C" PRIMARY KEY,
  requests_per_minute bigint NOT NULL,
  max_keys            bigint NOT NULL,
  max_subscriptions   bigint NOT NULL
);
INSERT INTO plans (name, requests_per_minute, max_keys, max_subscriptions) VALUES
  ('free', 300, 3, 10),
  ('pro', 3000, 20, 500),
  ('enterprise', 30000, 100, 10000);

-- email is COLLATE NOCASE on SQLite (one email per tenant, case-insensitive): here the column
-- keeps the email as given and the unique index is on lower(email), so the repo looks emails up
-- by lower(email) = lower($1).
CREATE TABLE tenants (
  id            text COLLATE "C" PRIMARY KEY,
  name          text COLLATE "C" NOT NULL,
  plan          text COLLATE "C" NOT NULL REFERENCES plans (name),
  email         text COLLATE "C",
  password_hash text COLLATE "C",
  created_at    bigint NOT NULL
);
CREATE UNIQUE INDEX tenants_email ON tenants (lower(email));

-- Only the SHA-256 of a secret is kept; lookups go by hash.
CREATE TABLE api_keys (
  id           text COLLATE "C" PRIMARY KEY,
  tenant_id    text COLLATE "C" NOT NULL REFERENCES tenants (id),
  name         text COLLATE "C",
  hash         bytea NOT NULL UNIQUE,
  prefix       text COLLATE "C" NOT NULL,
  last4        text COLLATE "C" NOT NULL,
  scopes       text COLLATE "C" NOT NULL,
  created_at   bigint NOT NULL,
  last_used_at bigint,
  expires_at   bigint,
  revoked_at   bigint
);
CREATE INDEX api_keys_tenant ON api_keys (tenant_id, created_at, id);

-- A session is known by the SHA-256 of its random id (the id lives only in the browser's cookie).
CREATE TABLE dashboard_sessions (
  id_hash             bytea PRIMARY KEY,
  tenant_id           text COLLATE "C" NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  created_at          bigint NOT NULL,
  last_seen_at        bigint NOT NULL,
  expires_at          bigint NOT NULL,
  absolute_expires_at bigint NOT NULL
);
CREATE INDEX dashboard_sessions_tenant ON dashboard_sessions (tenant_id);
CREATE INDEX dashboard_sessions_expiry ON dashboard_sessions (expires_at);

-- One row per failed sign-in and per throttle bucket, kept for the throttle window only.
CREATE TABLE sign_in_failures (
  bucket text COLLATE "C" NOT NULL,
  at     bigint NOT NULL
);
CREATE INDEX sign_in_failures_bucket ON sign_in_failures (bucket, at);
CREATE INDEX sign_in_failures_at ON sign_in_failures (at);

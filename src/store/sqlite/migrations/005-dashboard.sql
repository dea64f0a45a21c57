-- Dashboard sign-in (docs/api.md, Pages): sessions and the record of failed sign-ins.

-- A session is known by the SHA-256 of its random id; the id itself lives only in the browser's
-- cookie. A session ends at expires_at (idle limit, moved forward on use) or at
-- absolute_expires_at, whichever comes first.
CREATE TABLE dashboard_sessions (
  id_hash             BLOB PRIMARY KEY,
  tenant_id           TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  created_at          INTEGER NOT NULL,
  last_seen_at        INTEGER NOT NULL,
  expires_at          INTEGER NOT NULL,
  absolute_expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX dashboard_sessions_tenant ON dashboard_sessions(tenant_id);
CREATE INDEX dashboard_sessions_expiry ON dashboard_sessions(expires_at);

-- One row per failed sign-in and per throttle bucket ('ip:<address>' or 'account:<email>'),
-- kept for the throttle window only. In SQLite so a restart does not reset the count.
CREATE TABLE sign_in_failures (
  bucket TEXT NOT NULL,
  at     INTEGER NOT NULL
);
CREATE INDEX sign_in_failures_bucket ON sign_in_failures(bucket, at);

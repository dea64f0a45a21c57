-- wallet_rollups and market_rollups keyed by bucket first: (res, t, token_id, ...) instead of
-- (token_id, res, t, ...). Live ingest writes the newest buckets of every token; keyed by token,
-- each token's newest rows sat in their own B-tree pages (one group per token and width), and a
-- 1000-trade batch over 50 tokens dirtied about 780 pages of these two tables (each written to the
-- WAL and checkpointed). Keyed by bucket, the newest rows of all tokens share the tail of each
-- width's range: about 140 pages.
-- Readers seek (res, t, token_id) once per bucket of a window's cover (src/store/ranking-repo.ts),
-- so they never scan another token's rows.

CREATE TABLE wallet_rollups_by_time (
  token_id INTEGER NOT NULL,
  res      INTEGER NOT NULL,
  t        INTEGER NOT NULL,
  wallet   TEXT NOT NULL,
  vb REAL NOT NULL,
  vs REAL NOT NULL,
  nb INTEGER NOT NULL,
  ns INTEGER NOT NULL,
  PRIMARY KEY (res, t, token_id, wallet)
) WITHOUT ROWID;
INSERT INTO wallet_rollups_by_time (token_id, res, t, wallet, vb, vs, nb, ns)
SELECT token_id, res, t, wallet, vb, vs, nb, ns FROM wallet_rollups ORDER BY res, t, token_id, wallet;
DROP TABLE wallet_rollups;
ALTER TABLE wallet_rollups_by_time RENAME TO wallet_rollups;

CREATE TABLE market_rollups_by_time (
  token_id INTEGER NOT NULL,
  res      INTEGER NOT NULL,
  t        INTEGER NOT NULL,
  market   TEXT NOT NULL,
  v REAL NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (res, t, token_id, market)
) WITHOUT ROWID;
INSERT INTO market_rollups_by_time (token_id, res, t, market, v, n)
SELECT token_id, res, t, market, v, n FROM market_rollups ORDER BY res, t, token_id, market;
DROP TABLE market_rollups;
ALTER TABLE market_rollups_by_time RENAME TO market_rollups;

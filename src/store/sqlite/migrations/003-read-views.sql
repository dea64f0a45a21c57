-- Views of the trades kept at ingest for the /v1 reads (src/store/read-views-repo.ts writes them
-- in the ingest transaction; the INSERT ... SELECT statements below fill them for trades stored
-- before this migration and are the same as rebuildReadViews() there).
--
-- wallet_rollups: per token, wallet and bucket (res 60, 3600, 21600, 86400 seconds) the buy and sell
--   volume and counts, so top traders of a window sum a few buckets per wallet instead of every
--   trade (window edges finer than a minute come from the raw trades).
-- wallet_last: the newest trade time of each wallet of a token, so the unique wallets of a
--   window (now - w, now] are an index range count.
-- market_rollups / market_last: per market (the trade's market address) the same for the
--   markets list: 24 h volume and trade count, and the price of the last trade in trade order.

CREATE TABLE wallet_rollups (
  token_id INTEGER NOT NULL,
  res      INTEGER NOT NULL,
  t        INTEGER NOT NULL,
  wallet   TEXT NOT NULL,
  vb REAL NOT NULL,
  vs REAL NOT NULL,
  nb INTEGER NOT NULL,
  ns INTEGER NOT NULL,
  PRIMARY KEY (token_id, res, t, wallet)
) WITHOUT ROWID;

CREATE TABLE wallet_last (
  token_id  INTEGER NOT NULL,
  wallet    TEXT NOT NULL,
  last_time INTEGER NOT NULL,
  PRIMARY KEY (token_id, wallet)
) WITHOUT ROWID;
CREATE INDEX wallet_last_time ON wallet_last(token_id, last_time);

CREATE TABLE market_rollups (
  token_id INTEGER NOT NULL,
  res      INTEGER NOT NULL,
  t        INTEGER NOT NULL,
  market   TEXT NOT NULL,
  v REAL NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (token_id, res, t, market)
) WITHOUT ROWID;

CREATE TABLE market_last (
  token_id   INTEGER NOT NULL,
  market     TEXT NOT NULL,
  block_time INTEGER NOT NULL,
  trade_id   INTEGER NOT NULL,
  price_usd  REAL NOT NULL,
  PRIMARY KEY (token_id, market)
) WITHOUT ROWID;

-- discovery looks only at tokens traded within the window
CREATE INDEX tokens_last_trade ON tokens(last_trade_at);

INSERT INTO wallet_rollups (token_id, res, t, wallet, vb, vs, nb, ns)
SELECT token_id, r.res, block_time / r.res * r.res, wallet,
       sum(CASE WHEN is_buy = 1 THEN volume_usd ELSE 0 END), sum(CASE WHEN is_buy = 1 THEN 0 ELSE volume_usd END),
       sum(is_buy), sum(1 - is_buy)
FROM trades, (SELECT 60 AS res UNION ALL SELECT 3600 UNION ALL SELECT 21600 UNION ALL SELECT 86400) AS r
GROUP BY token_id, r.res, block_time / r.res, wallet;

INSERT INTO wallet_last (token_id, wallet, last_time)
SELECT token_id, wallet, max(block_time) FROM trades GROUP BY token_id, wallet;

INSERT INTO market_rollups (token_id, res, t, market, v, n)
SELECT token_id, r.res, block_time / r.res * r.res, market, sum(volume_usd), count(*)
FROM trades, (SELECT 60 AS res UNION ALL SELECT 3600) AS r
GROUP BY token_id, r.res, block_time / r.res, market;

INSERT INTO market_last (token_id, market, block_time, trade_id, price_usd)
SELECT token_id, market, block_time, id, price_usd FROM (
  SELECT token_id, market, block_time, id, price_usd,
         row_number() OVER (PARTITION BY token_id, market ORDER BY block_time DESC, id DESC) AS k
  FROM trades)
WHERE k = 1;

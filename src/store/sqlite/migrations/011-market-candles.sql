-- Per-market candle rollups (README, Pairs and native prices), at the same widths as the token's
-- (ROLLUP_SECONDS in src/domain/resolution.ts: 1 s, 15 s, 1 m, 15 m, 1 h, 1 d). o..v are in USD
-- (price_usd, volume_usd); qo..qv in the quote token (quote_amount / amount, quote_amount).
-- o_time/o_id and c_time/c_id are the trade-order keys of the open and close trades, so a
-- backfilled trade can take over the open or close of an existing bucket. Keyed by token too: a
-- market is one token's, and its bars are that token's trades in it.
CREATE TABLE market_candles (
  token_id INTEGER NOT NULL,
  market   TEXT NOT NULL,
  res      INTEGER NOT NULL,
  t        INTEGER NOT NULL,
  o REAL NOT NULL, h REAL NOT NULL, l REAL NOT NULL, c REAL NOT NULL, v REAL NOT NULL,
  qo REAL NOT NULL, qh REAL NOT NULL, ql REAL NOT NULL, qc REAL NOT NULL, qv REAL NOT NULL,
  n  INTEGER NOT NULL,
  o_time INTEGER NOT NULL, o_id INTEGER NOT NULL,
  c_time INTEGER NOT NULL, c_id INTEGER NOT NULL,
  PRIMARY KEY (token_id, market, res, t)
) WITHOUT ROWID;

-- The trades already stored, with the rule ingest keeps: first and last trade in (block_time, id).
INSERT INTO market_candles (token_id, market, res, t, o, h, l, c, v, qo, qh, ql, qc, qv, n, o_time, o_id, c_time, c_id)
SELECT token_id, market, res, t,
       max(CASE WHEN ka = 1 THEN price_usd END), max(price_usd), min(price_usd), max(CASE WHEN kd = 1 THEN price_usd END),
       sum(volume_usd),
       max(CASE WHEN ka = 1 THEN q END), max(q), min(q), max(CASE WHEN kd = 1 THEN q END),
       sum(quote_amount), count(*),
       max(CASE WHEN ka = 1 THEN block_time END), max(CASE WHEN ka = 1 THEN id END),
       max(CASE WHEN kd = 1 THEN block_time END), max(CASE WHEN kd = 1 THEN id END)
FROM (
  SELECT token_id, market, r.res AS res, block_time / r.res * r.res AS t, block_time, id, price_usd, volume_usd, quote_amount,
         CASE WHEN amount > 0 THEN quote_amount / amount ELSE 0.0 END AS q,
         row_number() OVER (PARTITION BY token_id, market, r.res, block_time / r.res ORDER BY block_time, id) AS ka,
         row_number() OVER (PARTITION BY token_id, market, r.res, block_time / r.res ORDER BY block_time DESC, id DESC) AS kd
  FROM trades, (SELECT 1 AS res UNION ALL SELECT 15 UNION ALL SELECT 60 UNION ALL SELECT 900 UNION ALL SELECT 3600 UNION ALL SELECT 86400) AS r
)
GROUP BY token_id, market, res, t;

-- Per-market candle rollups keyed by an integer market key instead of the market's address
-- (docs/architecture.md, The store): each row and each index entry of market_candles carried the
-- 32-44 character address, and every ingest slice compared and wrote it for each of its six widths.
-- market_keys numbers every market address a trade has named (a trade may name a market that has
-- no market record, so markets.id cannot serve); keys are never reused or removed.
--
-- wallet_rollups is dropped: top traders read their boards from the trades (src/http/v1/trader-board.ts),
-- and nothing else read it, while ingest wrote four rows per wallet and bucket for every trade.
CREATE TABLE market_keys (
  id      INTEGER PRIMARY KEY,
  address TEXT NOT NULL UNIQUE
);
INSERT INTO market_keys (address) SELECT DISTINCT market FROM market_candles ORDER BY market;

CREATE TABLE market_candles_by_key (
  token_id  INTEGER NOT NULL,
  market_id INTEGER NOT NULL,
  res       INTEGER NOT NULL,
  t         INTEGER NOT NULL,
  o REAL NOT NULL, h REAL NOT NULL, l REAL NOT NULL, c REAL NOT NULL, v REAL NOT NULL,
  qo REAL NOT NULL, qh REAL NOT NULL, ql REAL NOT NULL, qc REAL NOT NULL, qv REAL NOT NULL,
  n  INTEGER NOT NULL,
  o_time INTEGER NOT NULL, o_id INTEGER NOT NULL,
  c_time INTEGER NOT NULL, c_id INTEGER NOT NULL,
  PRIMARY KEY (token_id, market_id, res, t)
) WITHOUT ROWID;
INSERT INTO market_candles_by_key (token_id, market_id, res, t, o, h, l, c, v, qo, qh, ql, qc, qv, n, o_time, o_id, c_time, c_id)
SELECT mc.token_id, k.id, mc.res, mc.t, mc.o, mc.h, mc.l, mc.c, mc.v, mc.qo, mc.qh, mc.ql, mc.qc, mc.qv, mc.n, mc.o_time, mc.o_id, mc.c_time, mc.c_id
FROM market_candles mc JOIN market_keys k ON k.address = mc.market
ORDER BY mc.token_id, k.id, mc.res, mc.t;
DROP TABLE market_candles;
ALTER TABLE market_candles_by_key RENAME TO market_candles;

DROP TABLE IF EXISTS wallet_rollups;

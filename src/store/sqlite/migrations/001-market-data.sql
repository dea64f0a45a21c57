-- Market data: tokens, markets, trades, holders, candle rollups, and a small key/value table.
-- Addresses are stored as given (EVM-style ones lower-cased at ingest). Times are unix seconds.

CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE tokens (
  id                 INTEGER PRIMARY KEY,
  address            TEXT NOT NULL UNIQUE,
  symbol             TEXT NOT NULL,
  name               TEXT NOT NULL,
  decimals           INTEGER NOT NULL,
  total_supply       REAL,
  circulating_supply REAL,
  created_at         INTEGER NOT NULL,
  logo_uri           TEXT,
  -- server time of the newest ingest that touched the token
  updated_at         INTEGER NOT NULL,
  -- the last trade in trade order (block_time, id), kept at ingest
  last_trade_at      INTEGER,
  last_trade_id      INTEGER,
  price_usd          REAL,
  -- 1 for tokens made by the demo loader: the demo feed runs only while every token is a demo one
  is_demo            INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX tokens_symbol ON tokens(symbol COLLATE NOCASE);
CREATE INDEX tokens_created ON tokens(created_at DESC, address);

CREATE TABLE markets (
  id            INTEGER PRIMARY KEY,
  address       TEXT NOT NULL UNIQUE,
  token_id      INTEGER NOT NULL REFERENCES tokens(id),
  quote_address TEXT NOT NULL,
  quote_symbol  TEXT NOT NULL,
  dex           TEXT NOT NULL,
  liquidity_usd REAL NOT NULL,
  created_at    INTEGER NOT NULL
);
CREATE INDEX markets_token ON markets(token_id, liquidity_usd DESC, address);
CREATE INDEX markets_dex ON markets(dex);

-- Trades never get deleted, so the INTEGER PRIMARY KEY (max + 1) is monotonic without AUTOINCREMENT.
CREATE TABLE trades (
  id           INTEGER PRIMARY KEY,
  token_id     INTEGER NOT NULL REFERENCES tokens(id),
  block_time   INTEGER NOT NULL,
  signature    TEXT NOT NULL,
  idx          INTEGER NOT NULL,
  is_buy       INTEGER NOT NULL,
  price_usd    REAL NOT NULL,
  amount       REAL NOT NULL,
  quote_amount REAL NOT NULL,
  volume_usd   REAL NOT NULL,
  wallet       TEXT NOT NULL,
  market       TEXT NOT NULL
);
CREATE UNIQUE INDEX trades_signature ON trades(signature, idx);
CREATE INDEX trades_token_time ON trades(token_id, block_time, id);
CREATE INDEX trades_token_side_time ON trades(token_id, is_buy, block_time, id);
CREATE INDEX trades_token_wallet_time ON trades(token_id, wallet, block_time, id);

CREATE TABLE holders (
  token_id   INTEGER NOT NULL REFERENCES tokens(id),
  owner      TEXT NOT NULL,
  amount     REAL NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (token_id, owner)
) WITHOUT ROWID;
CREATE INDEX holders_rank ON holders(token_id, amount DESC, owner);

-- Candle rollups, kept at ingest for res (seconds) 60, 900, 3600, 86400 (ROLLUP_SECONDS in src/domain/resolution.ts).
-- o_time/o_id and c_time/c_id are the trade-order keys of the open and close trades, so a
-- backfilled trade can take over the open or close of an existing bucket.
-- vb/nb: buy volume and buy count, so windows can be summed from rollups.
CREATE TABLE candles (
  token_id INTEGER NOT NULL,
  res      INTEGER NOT NULL,
  t        INTEGER NOT NULL,
  o REAL NOT NULL, h REAL NOT NULL, l REAL NOT NULL, c REAL NOT NULL,
  v  REAL NOT NULL,
  vb REAL NOT NULL,
  n  INTEGER NOT NULL,
  nb INTEGER NOT NULL,
  o_time INTEGER NOT NULL, o_id INTEGER NOT NULL,
  c_time INTEGER NOT NULL, c_id INTEGER NOT NULL,
  PRIMARY KEY (token_id, res, t)
) WITHOUT ROWID;

-- The chain indexer's own rows: the twin of the SQLite store's 014-indexer.sql (see there).
CREATE TABLE indexer_positions (
  chain      text PRIMARY KEY,
  number     bigint NOT NULL,
  hash       text NOT NULL,
  updated_at bigint NOT NULL
);

CREATE TABLE indexer_blocks (
  chain       text NOT NULL,
  number      bigint NOT NULL,
  hash        text NOT NULL,
  parent_hash text NOT NULL,
  PRIMARY KEY (chain, number)
);

CREATE TABLE indexer_state (
  chain text NOT NULL,
  kind  text NOT NULL,
  key   text NOT NULL,
  body  text NOT NULL,
  PRIMARY KEY (chain, kind, key)
);

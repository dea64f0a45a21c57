-- The chain indexer's undo journal: the twin of the SQLite store's 016-indexer-journal.sql (see there).
CREATE TABLE indexer_batches (
  chain text NOT NULL,
  first bigint NOT NULL,
  last  bigint NOT NULL,
  PRIMARY KEY (chain, first)
);

CREATE TABLE indexer_undo (
  chain  text NOT NULL,
  number bigint NOT NULL,
  kind   text NOT NULL,
  key    text NOT NULL,
  body   text,
  PRIMARY KEY (chain, number, kind, key)
);

CREATE TABLE indexer_added (
  chain  text NOT NULL,
  number bigint NOT NULL,
  what   text NOT NULL,
  key    text NOT NULL,
  PRIMARY KEY (chain, number, what, key)
);

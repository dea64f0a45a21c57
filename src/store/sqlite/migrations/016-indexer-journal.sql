-- The chain indexer's undo journal (docs/indexer.md, Reorgs): what each batch of its last
-- reorgDepth blocks changed, so that a reorg can put it back. Written in the same transaction as
-- the batch (and its indexer_blocks rows), pruned with them.
-- indexer_batches: each journaled batch of blocks, first..last (a batch near the head is one block).
-- indexer_undo: the indexer_state rows a batch changed, with their body before it (NULL: there was
-- no such row); one row per state row and batch, the first value wins.
-- indexer_added: what a batch added to the store: 'trade' (key signature:logIndex), 'market'
-- (the pool) and 'token' (its address), first seen in that batch.
CREATE TABLE indexer_batches (
  chain TEXT NOT NULL,
  first INTEGER NOT NULL,
  last  INTEGER NOT NULL,
  PRIMARY KEY (chain, first)
) WITHOUT ROWID;

CREATE TABLE indexer_undo (
  chain  TEXT NOT NULL,
  number INTEGER NOT NULL,
  kind   TEXT NOT NULL,
  key    TEXT NOT NULL,
  body   TEXT,
  PRIMARY KEY (chain, number, kind, key)
) WITHOUT ROWID;

CREATE TABLE indexer_added (
  chain  TEXT NOT NULL,
  number INTEGER NOT NULL,
  what   TEXT NOT NULL,
  key    TEXT NOT NULL,
  PRIMARY KEY (chain, number, what, key)
) WITHOUT ROWID;

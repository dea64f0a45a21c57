-- The chain indexer's own rows (docs/indexer.md, Position and faults), written in the same
-- transaction as the records of the blocks they describe, so a crash at any moment leaves the
-- position and the data in agreement.
-- indexer_positions: a chain's last indexed block. indexer_blocks: its last reorgDepth indexed
-- blocks (number, hash, parent hash), kept so a reorg can be found and undone.
-- indexer_state: what the indexer carries from block to block as of its position, by kind: the
-- pools it found ('pool': tokens, dex, the reference state), the tokens it read ('token':
-- decimals, symbol, name, deployment block) and raw holder balances ('balance', key
-- token/owner, a decimal string: balances are 256-bit integers).
CREATE TABLE indexer_positions (
  chain      TEXT PRIMARY KEY,
  number     INTEGER NOT NULL,
  hash       TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);

CREATE TABLE indexer_blocks (
  chain       TEXT NOT NULL,
  number      INTEGER NOT NULL,
  hash        TEXT NOT NULL,
  parent_hash TEXT NOT NULL,
  PRIMARY KEY (chain, number)
) WITHOUT ROWID;

CREATE TABLE indexer_state (
  chain TEXT NOT NULL,
  kind  TEXT NOT NULL,
  key   TEXT NOT NULL,
  body  TEXT NOT NULL,
  PRIMARY KEY (chain, kind, key)
) WITHOUT ROWID;

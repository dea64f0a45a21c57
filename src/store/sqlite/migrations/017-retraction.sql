-- What a retraction needs (docs/indexer.md, Reorgs: what a retraction removes): trades taken back
-- out of the store when the chain indexer finds their blocks orphaned.
--
-- removal_log: one row per removed trade, written in the retraction's transaction, so the live
-- stream of every process reads what was removed after the last entry it saw (the trades
-- subscribers get `removed`, the bars subscribers `reset`) and the top-traders boards take the
-- removed trades back out of their figures. AUTOINCREMENT: the log is pruned (entries older than a
-- day, src/store/retract-repo.ts), and a seq must never be handed out twice.
CREATE TABLE removal_log (
  seq        INTEGER PRIMARY KEY AUTOINCREMENT,
  trade_id   INTEGER NOT NULL,
  token_id   INTEGER NOT NULL,
  signature  TEXT NOT NULL,
  idx        INTEGER NOT NULL,
  block_time INTEGER NOT NULL,
  wallet     TEXT NOT NULL,
  is_buy     INTEGER NOT NULL,
  volume_usd REAL NOT NULL,
  removed_at INTEGER NOT NULL
);
CREATE INDEX removal_log_time ON removal_log(removed_at);

-- Record numbers are never reused (docs/api.md, trades): SQLite's INTEGER PRIMARY KEY hands out
-- max(id) + 1, so removing the newest trades would give their numbers to the next ones, and a
-- stream or a walk that saw the old trade would take the new one for it. trade_id_floor holds the
-- highest number ever deleted (kept by the trigger below, whoever deletes: a retraction, the demo
-- pruning, `demo --remove`), and the ingest numbers new trades above max(max(id), floor).
CREATE TABLE trade_id_floor (
  one INTEGER PRIMARY KEY CHECK (one = 1),
  id  INTEGER NOT NULL
);
INSERT INTO trade_id_floor (one, id) VALUES (1, 0);

CREATE TRIGGER trades_id_floor AFTER DELETE ON trades BEGIN
  UPDATE trade_id_floor SET id = old.id WHERE one = 1 AND id < old.id;
END;

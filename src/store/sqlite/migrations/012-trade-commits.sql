-- The commits of the ingest (docs/api.md, Live stream): one row per write transaction that added
-- trades, holding the highest trade id it added. Trade ids grow with every commit (trades are
-- never deleted: 001-market-data.sql), so the trades of one transaction are exactly those with
-- an id above the previous row's and up to its own. The live stream reads these to send each
-- transaction of another process (a CLI file: 250 records a transaction) as its own message.
-- Pruned to the newest rows by the ingest hook that writes it (src/store/stream-repo.ts).
CREATE TABLE trade_commits (
  last_id INTEGER PRIMARY KEY
);

-- Twin of SQLite migration 012 (docs/api.md, Live stream): one row per write transaction that
-- added trades, holding the highest trade id it added, so the stream sends each transaction of
-- another process as its own message.
CREATE TABLE trade_commits (
  last_id bigint PRIMARY KEY
);

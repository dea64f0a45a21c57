-- Twin of SQLite migration 015: the number of trades the store holds, kept by triggers, so
-- /metrics reads one row instead of counting the table. Statement triggers over the transition
-- tables add a statement's rows at once (an ingest slice inserts its trades in one statement);
-- trades are numbered under the write-order lock (src/store/pg/write-order.ts), so the one row is
-- never a new point of contention. A TRUNCATE (tests) sets it back to 0.
CREATE TABLE trade_count (
  one bigint PRIMARY KEY CHECK (one = 1),
  n   bigint NOT NULL
);
INSERT INTO trade_count (one, n) VALUES (1, (SELECT count(*) FROM trades));

CREATE FUNCTION trades_count_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE trade_count SET n = n + (SELECT count(*) FROM counted) WHERE one = 1;
  RETURN NULL;
END
$$;
CREATE TRIGGER trades_count_insert AFTER INSERT ON trades REFERENCING NEW TABLE AS counted
  FOR EACH STATEMENT EXECUTE FUNCTION trades_count_insert();

CREATE FUNCTION trades_count_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE trade_count SET n = n - (SELECT count(*) FROM counted) WHERE one = 1;
  RETURN NULL;
END
$$;
CREATE TRIGGER trades_count_delete AFTER DELETE ON trades REFERENCING OLD TABLE AS counted
  FOR EACH STATEMENT EXECUTE FUNCTION trades_count_delete();

CREATE FUNCTION trades_count_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE trade_count SET n = 0 WHERE one = 1;
  RETURN NULL;
END
$$;
CREATE TRIGGER trades_count_truncate AFTER TRUNCATE ON trades FOR EACH STATEMENT EXECUTE FUNCTION trades_count_truncate();

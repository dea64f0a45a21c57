-- The number of trades the store holds, kept by triggers (docs/api.md, Operations: /metrics
-- `store_trades`), so a scrape reads one row instead of counting the table. max(id) stood for the
-- count while trades were never deleted; `demo --remove` and the demo feed's pruning delete them
-- (README, Demo data), and a store of 61 real trades then reported the 97,761 of the demo's ids.
-- One row; every insert and delete of a trade moves it in the same transaction.
CREATE TABLE trade_count (
  one INTEGER PRIMARY KEY CHECK (one = 1),
  n   INTEGER NOT NULL
);
INSERT INTO trade_count (one, n) VALUES (1, (SELECT count(*) FROM trades));

CREATE TRIGGER trades_count_insert AFTER INSERT ON trades BEGIN
  UPDATE trade_count SET n = n + 1 WHERE one = 1;
END;
CREATE TRIGGER trades_count_delete AFTER DELETE ON trades BEGIN
  UPDATE trade_count SET n = n - 1 WHERE one = 1;
END;

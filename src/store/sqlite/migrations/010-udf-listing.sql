-- Indexed symbol lookup and search for the UDF datafeed (docs/api.md, TradingView UDF datafeed), so that
-- /udf/symbols, /udf/search and /udf/config cost the same on a store of 200,000 tokens as on one
-- of ten: nothing below is read by scanning every token.
--
-- udf_listing: one row per token under dex '' (all exchanges), plus one per dex the token has a
-- market on, each carrying the token's liquidity (the sum over all its markets), symbol and
-- address. Search reads (dex, symbol) ranges, or walks (dex, liquidity) in order when a query
-- matches so many tokens that the walk meets `limit` of them within a few rows (symbol covered,
-- so the walk never leaves the index).
-- Triggers keep it exact whoever writes tokens or markets (ingest, CLI, demo loader). They test
-- for an existing row instead of INSERT OR IGNORE: an upsert firing a trigger imposes its own
-- conflict policy on the trigger's statements.
CREATE TABLE udf_listing (
  token_id      INTEGER NOT NULL,
  dex           TEXT NOT NULL COLLATE NOCASE,
  liquidity_usd REAL NOT NULL,
  address       TEXT NOT NULL,
  symbol        TEXT NOT NULL COLLATE NOCASE,
  PRIMARY KEY (token_id, dex)
) WITHOUT ROWID;
CREATE INDEX udf_listing_rank ON udf_listing(dex, liquidity_usd DESC, address, symbol);
CREATE INDEX udf_listing_symbol ON udf_listing(dex, symbol, liquidity_usd DESC, address);

-- The Charting Library upper-cases a pasted address; base58 addresses are case-sensitive, so the
-- case-insensitive fallback and address-prefix search need their own index.
CREATE INDEX tokens_address_nocase ON tokens(address COLLATE NOCASE);

-- Word prefixes of token names ("bonk" finds "Super Bonk"), read through FTS5's prefix index.
-- Words are runs of letters, digits and private-use characters, case-folded, diacritics kept:
-- the rule src/domain/udf.ts applies when it checks names itself.
CREATE VIRTUAL TABLE udf_names USING fts5(name, content='tokens', content_rowid='id', prefix='1 2 3',
  tokenize="unicode61 remove_diacritics 0");

INSERT INTO udf_listing (token_id, dex, liquidity_usd, address, symbol)
SELECT t.id, '', coalesce((SELECT sum(m.liquidity_usd) FROM markets m WHERE m.token_id = t.id), 0), t.address, t.symbol
FROM tokens t;
INSERT INTO udf_listing (token_id, dex, liquidity_usd, address, symbol)
SELECT m.token_id, min(m.dex), l.liquidity_usd, l.address, l.symbol
FROM markets m JOIN udf_listing l ON l.token_id = m.token_id AND l.dex = ''
GROUP BY m.token_id, m.dex COLLATE NOCASE;
INSERT INTO udf_names (udf_names) VALUES ('rebuild');

CREATE TRIGGER udf_tokens_insert AFTER INSERT ON tokens BEGIN
  INSERT INTO udf_listing (token_id, dex, liquidity_usd, address, symbol) VALUES (new.id, '', 0, new.address, new.symbol);
  INSERT INTO udf_names (rowid, name) VALUES (new.id, new.name);
END;

CREATE TRIGGER udf_tokens_symbol AFTER UPDATE OF symbol, address ON tokens
WHEN old.symbol IS NOT new.symbol OR old.address IS NOT new.address BEGIN
  UPDATE udf_listing SET symbol = new.symbol, address = new.address WHERE token_id = new.id;
END;

CREATE TRIGGER udf_tokens_name AFTER UPDATE OF name ON tokens WHEN old.name IS NOT new.name BEGIN
  INSERT INTO udf_names (udf_names, rowid, name) VALUES ('delete', old.id, old.name);
  INSERT INTO udf_names (rowid, name) VALUES (new.id, new.name);
END;

CREATE TRIGGER udf_tokens_delete AFTER DELETE ON tokens BEGIN
  DELETE FROM udf_listing WHERE token_id = old.id;
  INSERT INTO udf_names (udf_names, rowid, name) VALUES ('delete', old.id, old.name);
END;

CREATE TRIGGER udf_markets_insert AFTER INSERT ON markets BEGIN
  INSERT INTO udf_listing (token_id, dex, liquidity_usd, address, symbol)
  SELECT token_id, new.dex, 0, address, symbol FROM udf_listing WHERE token_id = new.token_id AND dex = ''
    AND NOT EXISTS (SELECT 1 FROM udf_listing WHERE token_id = new.token_id AND dex = new.dex);
  UPDATE udf_listing SET liquidity_usd = (SELECT coalesce(sum(liquidity_usd), 0) FROM markets WHERE token_id = new.token_id)
  WHERE token_id = new.token_id;
END;

CREATE TRIGGER udf_markets_update AFTER UPDATE OF token_id, dex, liquidity_usd ON markets BEGIN
  DELETE FROM udf_listing WHERE token_id = old.token_id AND dex = old.dex AND dex <> ''
    AND NOT EXISTS (SELECT 1 FROM markets WHERE token_id = old.token_id AND dex = old.dex COLLATE NOCASE);
  INSERT INTO udf_listing (token_id, dex, liquidity_usd, address, symbol)
  SELECT token_id, new.dex, 0, address, symbol FROM udf_listing WHERE token_id = new.token_id AND dex = ''
    AND NOT EXISTS (SELECT 1 FROM udf_listing WHERE token_id = new.token_id AND dex = new.dex);
  UPDATE udf_listing SET liquidity_usd = (SELECT coalesce(sum(liquidity_usd), 0) FROM markets WHERE token_id = old.token_id)
  WHERE token_id = old.token_id AND old.token_id <> new.token_id;
  UPDATE udf_listing SET liquidity_usd = (SELECT coalesce(sum(liquidity_usd), 0) FROM markets WHERE token_id = new.token_id)
  WHERE token_id = new.token_id;
END;

CREATE TRIGGER udf_markets_delete AFTER DELETE ON markets BEGIN
  DELETE FROM udf_listing WHERE token_id = old.token_id AND dex = old.dex AND dex <> ''
    AND NOT EXISTS (SELECT 1 FROM markets WHERE token_id = old.token_id AND dex = old.dex COLLATE NOCASE);
  UPDATE udf_listing SET liquidity_usd = (SELECT coalesce(sum(liquidity_usd), 0) FROM markets WHERE token_id = old.token_id)
  WHERE token_id = old.token_id;
END;

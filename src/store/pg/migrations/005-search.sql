-- Search (SQLite migrations 009 and 010): the /v1/search index and the UDF listing, with the
-- triggers that keep udf_listing exact whoever writes tokens or markets.
--
-- SQLite's two FTS5 virtual tables become indexes of the same names (pg_trgm ships in Debian's
-- postgresql package and is a trusted extension, so the database owner can create it):
-- - token_search_names (trigram, case-sensitive, over the already folded names): a pg_trgm GIN
--   index on token_search.name; substring search is name LIKE '%' || q || '%' (q escaped), which
--   the index narrows and PostgreSQL rechecks, so the answer is exact.
-- - udf_names (word prefixes of tokens.name, case-folded, diacritics kept): a pg_trgm GIN index
--   on lower(name) under the ICU root collation (full Unicode case folding, where lower() under
--   "C" folds ASCII only). It finds the candidates (lower(name COLLATE "und-x-icu") LIKE
--   '%' || lower(q) || '%'); the repo keeps those where a word starts with q, the rule
--   src/domain/udf.ts already applies to names itself.
-- pg_trgm takes its trigrams from letters and digits under the database's character classes: on a
-- database created with the C locale, non-ASCII letters are not word characters, so a query made
-- only of them is not narrowed by the index (still exact, only slower).
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE token_search (
  token_id bigint PRIMARY KEY,
  address  text COLLATE "C" NOT NULL,
  sym      text COLLATE "C" NOT NULL,
  name     text COLLATE "C" NOT NULL
);
CREATE UNIQUE INDEX token_search_address ON token_search (address, sym, name);
CREATE INDEX token_search_sym ON token_search (sym, address);
CREATE INDEX token_search_names ON token_search USING gin (name gin_trgm_ops);

CREATE TABLE token_search_grams (
  gram     text COLLATE "C" NOT NULL,
  token_id bigint NOT NULL,
  PRIMARY KEY (gram, token_id)
);

-- dex and symbol are COLLATE NOCASE on SQLite, so (token_id, dex) is unique case-insensitively
-- there: udf_listing_dex adds that rule here, and the indexes sort by lower(dex) and lower(symbol)
-- (ASCII folding under "C", as NOCASE), carrying symbol so a walk never leaves the index.
CREATE TABLE udf_listing (
  token_id      bigint NOT NULL,
  dex           text COLLATE "C" NOT NULL,
  liquidity_usd double precision NOT NULL,
  address       text COLLATE "C" NOT NULL,
  symbol        text COLLATE "C" NOT NULL,
  PRIMARY KEY (token_id, dex)
);
CREATE UNIQUE INDEX udf_listing_dex ON udf_listing (token_id, lower(dex));
CREATE INDEX udf_listing_rank ON udf_listing (lower(dex), liquidity_usd DESC, address) INCLUDE (symbol);
CREATE INDEX udf_listing_symbol ON udf_listing (lower(dex), lower(symbol), liquidity_usd DESC, address) INCLUDE (symbol);

-- The Charting Library upper-cases a pasted address; base58 addresses are case-sensitive.
CREATE INDEX tokens_address_nocase ON tokens (lower(address));
CREATE INDEX udf_names ON tokens USING gin (lower(name COLLATE "und-x-icu") gin_trgm_ops);

-- The triggers of SQLite's migration 010 (same names, same statements). udf_tokens_name has no
-- twin: it only kept the FTS5 table, and an index follows the column by itself.
CREATE FUNCTION udf_tokens_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO udf_listing (token_id, dex, liquidity_usd, address, symbol) VALUES (NEW.id, '', 0, NEW.address, NEW.symbol);
  RETURN NULL;
END $$;
CREATE TRIGGER udf_tokens_insert AFTER INSERT ON tokens FOR EACH ROW EXECUTE FUNCTION udf_tokens_insert();

CREATE FUNCTION udf_tokens_symbol() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE udf_listing SET symbol = NEW.symbol, address = NEW.address WHERE token_id = NEW.id;
  RETURN NULL;
END $$;
CREATE TRIGGER udf_tokens_symbol AFTER UPDATE OF symbol, address ON tokens FOR EACH ROW
  WHEN (OLD.symbol IS DISTINCT FROM NEW.symbol OR OLD.address IS DISTINCT FROM NEW.address)
  EXECUTE FUNCTION udf_tokens_symbol();

CREATE FUNCTION udf_tokens_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM udf_listing WHERE token_id = OLD.id;
  RETURN NULL;
END $$;
CREATE TRIGGER udf_tokens_delete AFTER DELETE ON tokens FOR EACH ROW EXECUTE FUNCTION udf_tokens_delete();

-- A market's dex gets its listing row (if the token has none for that dex in any case); the
-- token's liquidity is the sum over all its markets.
CREATE FUNCTION udf_listing_add_dex(p_token bigint, p_dex text) RETURNS void LANGUAGE sql AS $$
  INSERT INTO udf_listing (token_id, dex, liquidity_usd, address, symbol)
  SELECT token_id, p_dex, 0, address, symbol FROM udf_listing WHERE token_id = p_token AND dex = ''
    AND NOT EXISTS (SELECT 1 FROM udf_listing WHERE token_id = p_token AND lower(dex) = lower(p_dex));
$$;
CREATE FUNCTION udf_listing_drop_dex(p_token bigint, p_dex text) RETURNS void LANGUAGE sql AS $$
  DELETE FROM udf_listing WHERE token_id = p_token AND lower(dex) = lower(p_dex) AND dex <> ''
    AND NOT EXISTS (SELECT 1 FROM markets WHERE token_id = p_token AND lower(dex) = lower(p_dex));
$$;
CREATE FUNCTION udf_listing_liquidity(p_token bigint) RETURNS void LANGUAGE sql AS $$
  UPDATE udf_listing SET liquidity_usd = (SELECT coalesce(sum(liquidity_usd), 0) FROM markets WHERE token_id = p_token)
  WHERE token_id = p_token;
$$;

CREATE FUNCTION udf_markets_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM udf_listing_add_dex(NEW.token_id, NEW.dex);
  PERFORM udf_listing_liquidity(NEW.token_id);
  RETURN NULL;
END $$;
CREATE TRIGGER udf_markets_insert AFTER INSERT ON markets FOR EACH ROW EXECUTE FUNCTION udf_markets_insert();

CREATE FUNCTION udf_markets_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM udf_listing_drop_dex(OLD.token_id, OLD.dex);
  PERFORM udf_listing_add_dex(NEW.token_id, NEW.dex);
  IF OLD.token_id <> NEW.token_id THEN
    PERFORM udf_listing_liquidity(OLD.token_id);
  END IF;
  PERFORM udf_listing_liquidity(NEW.token_id);
  RETURN NULL;
END $$;
CREATE TRIGGER udf_markets_update AFTER UPDATE OF token_id, dex, liquidity_usd ON markets FOR EACH ROW
  EXECUTE FUNCTION udf_markets_update();

CREATE FUNCTION udf_markets_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM udf_listing_drop_dex(OLD.token_id, OLD.dex);
  PERFORM udf_listing_liquidity(OLD.token_id);
  RETURN NULL;
END $$;
CREATE TRIGGER udf_markets_delete AFTER DELETE ON markets FOR EACH ROW EXECUTE FUNCTION udf_markets_delete();

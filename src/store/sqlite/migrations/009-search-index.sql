-- The search index of /v1/search (src/store/search-index-repo.ts keeps it at ingest, as an
-- IngestHook): each token's address with its symbol and name folded to lower case, so exact
-- symbol and symbol prefix are index ranges, a walk in address order reads only this narrow
-- table, and names are searched by substring through an FTS5 trigram index (queries of three or
-- more characters). Filled here with SQLite's lower(), which folds ASCII only; the repo refolds
-- the tokens with other letters once, in JavaScript (docs/api.md, Search).

CREATE TABLE token_search (
  token_id INTEGER PRIMARY KEY,
  address  TEXT NOT NULL,
  sym      TEXT NOT NULL,
  name     TEXT NOT NULL
);
CREATE UNIQUE INDEX token_search_address ON token_search(address, sym, name);
CREATE INDEX token_search_sym ON token_search(sym, address);

CREATE TABLE token_search_grams (
  gram     TEXT NOT NULL,
  token_id INTEGER NOT NULL,
  PRIMARY KEY (gram, token_id)
) WITHOUT ROWID;

CREATE VIRTUAL TABLE token_search_names USING fts5(name, tokenize = 'trigram case_sensitive 1', content = '', contentless_delete = 1);

INSERT INTO token_search (token_id, address, sym, name) SELECT id, address, lower(symbol), lower(name) FROM tokens;
INSERT INTO token_search_names (rowid, name) SELECT token_id, name FROM token_search;
WITH RECURSIVE at(token_id, name, i) AS (
  SELECT token_id, name, 1 FROM token_search WHERE length(name) > 0
  UNION ALL SELECT token_id, name, i + 1 FROM at WHERE i < length(name)
)
INSERT OR IGNORE INTO token_search_grams (gram, token_id)
SELECT substr(name, i, 1), token_id FROM at
UNION ALL SELECT substr(name, i, 2), token_id FROM at WHERE i < length(name);

-- The token change log (src/store/token-changes-repo.ts): the ids of the tokens each ingest
-- transaction touched, in commit order, whichever process wrote. The discovery boards of a
-- server read what changed since they last looked, so a CLI ingest beside the server costs them
-- the tokens it touched, not a rebuild. Old entries are pruned at ingest.
CREATE TABLE token_changes (
  seq      INTEGER PRIMARY KEY,
  token_id INTEGER NOT NULL
);

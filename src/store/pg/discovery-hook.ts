/**
 * Discovery's ingest hook on PostgreSQL: the twin of discoveryHook() in
 * src/store/sqlite/token-changes-repo.ts, the search index rows of the touched tokens
 * (pgSearchIndexWriter) and the token change log (its append and pruning,
 * src/store/pg/token-changes-repo.ts), on the ingest's transaction client, so the change log is
 * numbered in commit order.
 */
import type { IngestHook } from '../port/ingest.js';
import { foldCase } from '../port/repos.js';
import { clientOf } from './ingest-tx.js';
import { carrying } from './deferred-writes.js';
import { pgSearchIndexWriter } from './search-index-repo.js';
import { pgTokenChangesPruner, TOKEN_CHANGES_APPEND } from './token-changes-repo.js';

export function pgDiscoveryHook(): IngestHook {
  const prune = pgTokenChangesPruner();
  return async ({ touchedTokens }, tx) => {
    const client = clientOf(tx);
    if (touchedTokens.size > 0) {
      // One statement appends the tokens to the change log and finds those whose index row is
      // missing or stale (a new token, a renamed one): the read does not depend on the append (the
      // two touch different tables), so they share a round trip. Most slices touch tokens already
      // indexed, and then write nothing more here.
      // The writes waiting for the next statement (src/store/pg/deferred-writes.ts) go with it too:
      // none writes a symbol, a name or the search index.
      const ids = [...touchedTokens];
      const found = await carrying<{ id: number; symbol: string; name: string; sym: string | null; folded: string | null }>(
        client,
        [{ sql: TOKEN_CHANGES_APPEND, params: [ids] }],
        `SELECT t.id, t.symbol, t.name, s.sym, s.name AS folded FROM tokens t LEFT JOIN token_search s ON s.token_id = t.id
         WHERE t.id = ANY($1::bigint[])`,
        [ids],
      );
      const stale = new Set(found.filter((r) => r.sym !== foldCase(r.symbol) || r.folded !== foldCase(r.name)).map((r) => r.id));
      const write = pgSearchIndexWriter(client);
      for (const id of touchedTokens) if (stale.has(id)) await write(id);
    }
    await prune(client);
  };
}

/**
 * Discovery's ingest hook on PostgreSQL: the twin of discoveryHook() in
 * src/store/sqlite/token-changes-repo.ts, the search index rows of the touched tokens
 * (pgSearchIndexWriter) and the token change log (pgTokenChangesWriter), on the ingest's
 * transaction client, so the change log is numbered in commit order.
 */
import type { IngestHook } from '../port/ingest.js';
import { foldCase } from '../port/repos.js';
import { clientOf } from './ingest-tx.js';
import { rows } from './pg-repo.js';
import { pgSearchIndexWriter } from './search-index-repo.js';
import { pgTokenChangesWriter } from './token-changes-repo.js';

export function pgDiscoveryHook(): IngestHook {
  const changes = pgTokenChangesWriter();
  return async ({ touchedTokens }, tx) => {
    const client = clientOf(tx);
    if (touchedTokens.size > 0) {
      // One read finds the tokens whose index row is missing or stale (a new token, a renamed
      // one); most slices touch tokens already indexed, and then write nothing here.
      const found = await rows<{ id: number; symbol: string; name: string; sym: string | null; folded: string | null }>(
        client,
        `SELECT t.id, t.symbol, t.name, s.sym, s.name AS folded FROM tokens t LEFT JOIN token_search s ON s.token_id = t.id
         WHERE t.id = ANY($1::bigint[])`,
        [[...touchedTokens]],
      );
      const stale = new Set(found.filter((r) => r.sym !== foldCase(r.symbol) || r.folded !== foldCase(r.name)).map((r) => r.id));
      const write = pgSearchIndexWriter(client);
      for (const id of touchedTokens) if (stale.has(id)) await write(id);
    }
    await changes(client, touchedTokens);
  };
}

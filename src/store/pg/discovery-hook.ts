/**
 * Discovery's ingest hook on PostgreSQL: the twin of discoveryHook() in
 * src/store/token-changes-repo.ts, the search index rows of the touched tokens
 * (pgSearchIndexWriter) and the token change log (pgTokenChangesWriter), on the ingest's
 * transaction client, so the change log is numbered in commit order.
 */
import type { IngestHook } from '../../services/ingest.js';
import { clientOf } from './ingest-tx.js';
import { pgSearchIndexWriter } from './search-index-repo.js';
import { pgTokenChangesWriter } from './token-changes-repo.js';

export function pgDiscoveryHook(): IngestHook {
  const changes = pgTokenChangesWriter();
  return async ({ touchedTokens }, tx) => {
    const client = clientOf(tx);
    // A few statements per touched token: a slice touches tokens by the dozen, not by the thousand.
    const write = pgSearchIndexWriter(client);
    for (const id of touchedTokens) await write(id);
    await changes(client, touchedTokens);
  };
}

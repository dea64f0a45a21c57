/**
 * What the PostgreSQL ingest hooks share: the client of the ingest's transaction, taken from the
 * hook's handle (docs/architecture.md, The ingest boundary).
 */
import type pg from 'pg';
import type { IngestTx } from '../port/ingest.js';

/** The transaction's client; a PostgreSQL hook handed a SQLite transaction is a wiring error. */
export function clientOf(tx: IngestTx): pg.ClientBase {
  if (tx.engine !== 'postgres') throw new Error('a PostgreSQL ingest hook was handed a SQLite transaction');
  return tx.client;
}

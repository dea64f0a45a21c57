/**
 * The transaction an ingest or a retraction runs its hooks in (src/store/port/ingest.ts,
 * retract.ts): on SQLite the one connection's (its hooks hold their own statements), on
 * PostgreSQL the client of the ingest's inWriteOrder() transaction.
 */
import type pg from 'pg';

export type IngestTx = { readonly engine: 'sqlite' } | { readonly engine: 'postgres'; readonly client: pg.ClientBase };

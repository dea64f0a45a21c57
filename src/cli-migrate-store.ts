/**
 * `cli migrate-store --to postgres://...` (docs/operations.md, Many instances: moving a store to
 * PostgreSQL): copies the SQLite store at DATABASE_PATH, which nothing may have open, into an
 * empty PostgreSQL database, whole or not at all (src/store/pg/copy-store.ts).
 */
import { existsSync } from 'node:fs';
import type { CommandContext, Output } from './cli-commands.js';
import { storeInUse } from './store/sqlite/in-use.js';

const POSTGRES_URL = /^postgres(ql)?:\/\/[^\s]+$/;

export async function migrateStore(ctx: CommandContext & { opts: { to?: string } }): Promise<Output> {
  if (ctx.positionals.length > 0) throw ctx.fail.usage(`migrate-store takes no argument (got ${ctx.positionals.join(' ')})`);
  const to = ctx.opts.to;
  if (to === undefined || to === '') throw ctx.fail.usage('migrate-store needs --to postgres://user:pass@host:port/db');
  if (!POSTGRES_URL.test(to)) throw ctx.fail.usage('--to must be a postgres:// or postgresql:// URL');
  const source = ctx.databasePath();
  if (source === ':memory:') throw ctx.fail.command('DATABASE_PATH is :memory:; there is no store file to copy');
  if (!existsSync(source)) throw ctx.fail.command(`no store at ${source} (DATABASE_PATH)`);
  if (storeInUse(source)) throw ctx.fail.command(`the store at ${source} is in use (stop the server and any CLI using it first)`);

  // Loaded here, so the other commands of a SQLite deployment never load the pg module.
  const { copySqliteToPg, CopyRefused } = await import('./store/pg/copy-store.js');
  const { createPgPool } = await import('./store/pg/pool.js');
  // One connection; a statement may take long (a large table's rows go in big multi-row inserts).
  const pool = createPgPool({ url: to, instanceId: 'cli migrate-store', max: 1, connectTimeoutMs: 10_000, statementTimeoutMs: 600_000 });
  try {
    const client = await pool.connect().catch((err: Error) => {
      throw ctx.fail.command(`cannot connect to --to: ${err.message}`);
    });
    try {
      const copied = await copySqliteToPg({
        sqlitePath: source,
        client,
        onTable: (table, rows) => ctx.stderr(`migrate-store: ${table}: ${rows} rows\n`),
      });
      return {
        doc: { from: source, tables: copied.tables, rows: copied.rows },
        human: `copied ${copied.rows} rows in ${Object.keys(copied.tables).length} tables from ${source} into PostgreSQL`,
      };
    } catch (err) {
      if (err instanceof CopyRefused) throw ctx.fail.command(err.message);
      throw ctx.fail.command(`migrate-store failed, no row was copied: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      client.release();
    }
  } finally {
    await pool.end();
  }
}

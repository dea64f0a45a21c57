/**
 * `cli migrate-store --to postgres://...` (docs/operations.md, Many instances: moving a store to
 * PostgreSQL): copies the SQLite store at DATABASE_PATH, which nothing may have open, into an
 * empty PostgreSQL database, whole or not at all (the PostgreSQL engine's copyFromSqlite:
 * src/store/pg/copy-store.ts).
 */
import { existsSync } from 'node:fs';
import type { CommandContext, Output } from './cli-commands.js';
import { engineFor } from './open-store.js';
import { CopyRefused, CopyTargetUnreachable } from './store/port/engine.js';

const POSTGRES_URL = /^postgres(ql)?:\/\/[^\s]+$/;

export async function migrateStore(ctx: CommandContext & { opts: { to?: string } }): Promise<Output> {
  if (ctx.positionals.length > 0) throw ctx.fail.usage(`migrate-store takes no argument (got ${ctx.positionals.join(' ')})`);
  const to = ctx.opts.to;
  if (to === undefined || to === '') throw ctx.fail.usage('migrate-store needs --to postgres://user:pass@host:port/db');
  if (!POSTGRES_URL.test(to)) throw ctx.fail.usage('--to must be a postgres:// or postgresql:// URL');
  const source = ctx.databasePath();
  if (source === ':memory:') throw ctx.fail.command('DATABASE_PATH is :memory:; there is no store file to copy');
  if (!existsSync(source)) throw ctx.fail.command(`no store at ${source} (DATABASE_PATH)`);
  // The engine of DATABASE_PATH tells whether another process has its file open.
  const { inUse } = engineFor({ databaseUrl: null });
  if (inUse === undefined)
    throw ctx.fail.command('the store at DATABASE_PATH cannot be checked for other users; stop every process using it and copy it with its own tools');
  if (inUse(source)) throw ctx.fail.command(`the store at ${source} is in use (stop the server and any CLI using it first)`);

  // The engine of the --to URL copies (PostgreSQL's copyFromSqlite).
  const { copyFromSqlite } = engineFor({ databaseUrl: to });
  if (copyFromSqlite === undefined) throw ctx.fail.usage('--to names a store that cannot take a copy of a SQLite store');
  try {
    const copied = await copyFromSqlite(source, to, (table, rows) => ctx.stderr(`migrate-store: ${table}: ${rows} rows\n`));
    return {
      doc: { from: source, tables: copied.tables, rows: copied.rows },
      human: `copied ${copied.rows} rows in ${Object.keys(copied.tables).length} tables from ${source} into PostgreSQL`,
    };
  } catch (err) {
    if (err instanceof CopyTargetUnreachable) throw ctx.fail.command(`cannot connect to --to: ${err.message}`);
    if (err instanceof CopyRefused) throw ctx.fail.command(err.message);
    throw ctx.fail.command(`migrate-store failed, no row was copied: ${err instanceof Error ? err.message : String(err)}`);
  }
}

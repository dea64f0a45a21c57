/**
 * The PostgreSQL schema is the SQLite schema's twin: the same tables, columns (in order, with
 * mapped types, nullability and defaults), primary keys, foreign keys, named indexes and
 * triggers, read from both engines. A SQLite migration added without its PostgreSQL twin fails
 * here. The udf_listing triggers are also run side by side on random writes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import Database from 'better-sqlite3';
import pg from 'pg';
import { migrate } from '../../src/store/sqlite/db.js';
import { migratePg } from '../../src/store/pg/migrate.js';
import { freshDatabase, type FreshDatabase } from './support.js';
import { pgSchema, sqliteSchema, type Schema } from './schema-introspect.js';

/** PostgreSQL-only indexes, each standing for something SQLite does another way. */
const PG_ONLY_INDEXES: Record<string, string> = {
  tenants_email: "SQLite's unnamed UNIQUE COLLATE NOCASE on tenants.email",
  udf_listing_dex: "SQLite's COLLATE NOCASE on the udf_listing primary key's dex",
};
/** SQLite triggers that only maintain an FTS5 table; the PostgreSQL index follows its column alone. */
const FTS_ONLY_TRIGGERS = ['udf_tokens_name'];

describe('PostgreSQL schema against the SQLite schema', () => {
  let db: FreshDatabase;
  let client: pg.Client;
  let lite: Schema;
  let post: Schema;

  beforeAll(async () => {
    db = await freshDatabase('schema');
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
    await migratePg(client);
    lite = sqliteSchema();
    post = await pgSchema(client, ['store_migrations']);
  });
  afterAll(async () => {
    await client?.end();
    await db?.drop();
  });

  it('has the same tables', () => {
    expect(lite.tables.length).toBeGreaterThan(20);
    expect(post.tables.map((t) => t.name)).toEqual(lite.tables.map((t) => t.name));
  });

  it('has the same columns in the same order, with mapped types, nullability and defaults', () => {
    for (const t of lite.tables) {
      const twin = post.tables.find((p) => p.name === t.name);
      expect(twin?.columns, t.name).toEqual(t.columns);
    }
  });

  it('has the same primary keys', () => {
    for (const t of lite.tables) {
      expect(t.primaryKey.length, `${t.name} has a primary key`).toBeGreaterThan(t.name === 'sign_in_failures' ? -1 : 0);
      expect(post.tables.find((p) => p.name === t.name)?.primaryKey, t.name).toEqual(t.primaryKey);
    }
  });

  it('has the same foreign keys with the same ON DELETE actions', () => {
    expect(lite.foreignKeys.length).toBeGreaterThan(5);
    expect(post.foreignKeys).toEqual(lite.foreignKeys);
  });

  it('has every named SQLite index, on the same table and equally unique, and no unexplained extra', () => {
    for (const i of lite.indexes)
      expect(
        post.indexes.find((p) => p.name === i.name),
        i.name,
      ).toEqual(i);
    // FTS5 virtual tables become indexes of the same names (src/store/pg/migrations/005-search.sql).
    for (const v of lite.virtualTables)
      expect(
        post.indexes.map((p) => p.name),
        v,
      ).toContain(v);
    const constraintIndex = (n: string) => n.endsWith('_pkey') || n.endsWith('_key');
    const explained = new Set([...lite.indexes.map((i) => i.name), ...lite.virtualTables, ...Object.keys(PG_ONLY_INDEXES)]);
    expect(post.indexes.filter((i) => !constraintIndex(i.name) && !explained.has(i.name)).map((i) => i.name)).toEqual([]);
  });

  it('has the same triggers', () => {
    expect(post.triggers).toEqual(lite.triggers.filter((t) => !FTS_ONLY_TRIGGERS.includes(t)));
  });

  it('keeps udf_listing the same as SQLite through random writes to tokens and markets', async () => {
    type Op =
      | { kind: 'token'; symbol: string }
      | { kind: 'rename'; token: number; symbol: string }
      | { kind: 'market'; token: number; dex: string; liq: number }
      | { kind: 'editMarket'; market: number; token: number; dex: string; liq: number }
      | { kind: 'dropMarket'; market: number }
      | { kind: 'dropToken'; token: number };
    const dex = fc.constantFrom('Raydium', 'raydium', 'RAYDIUM', 'Orca', 'orca', 'Meteora');
    const n = fc.integer({ min: 1, max: 3 });
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ kind: fc.constant('token' as const), symbol: fc.constantFrom('AB', 'cd', 'Ef') }),
      fc.record({ kind: fc.constant('rename' as const), token: n, symbol: fc.constantFrom('AB', 'XY') }),
      { weight: 4, arbitrary: fc.record({ kind: fc.constant('market' as const), token: n, dex, liq: fc.integer({ min: 0, max: 1000 }) }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('editMarket' as const), market: n, token: n, dex, liq: fc.integer({ min: 0, max: 1000 }) }) },
      fc.record({ kind: fc.constant('dropMarket' as const), market: n }),
      fc.record({ kind: fc.constant('dropToken' as const), token: n }),
    );

    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 25, size: 'medium' }), async (rest) => {
        // Two tokens to begin with, so most writes meet an existing row.
        const ops: Op[] = [{ kind: 'token', symbol: 'AB' }, { kind: 'token', symbol: 'cd' }, ...rest];
        const lite = new Database(':memory:');
        migrate(lite);
        await client.query('TRUNCATE udf_listing, markets, tokens RESTART IDENTITY CASCADE');
        try {
          // Each write runs on both; one refused by a constraint (a token with markets) is refused by both.
          const both = async (sql: string, params: unknown[]) => {
            let liteOk = true;
            let pgOk = true;
            try {
              lite.prepare(sql.replace(/\$\d+/g, '?')).run(...params);
            } catch {
              liteOk = false;
            }
            try {
              await client.query('SAVEPOINT w');
              await client.query(sql, params);
              await client.query('RELEASE w');
            } catch {
              await client.query('ROLLBACK TO w');
              pgOk = false;
            }
            expect(pgOk, sql).toBe(liteOk);
          };
          await client.query('BEGIN');
          let tokens = 0;
          let markets = 0;
          for (const o of ops) {
            if (o.kind === 'token') {
              tokens++;
              await both('INSERT INTO tokens (id, address, symbol, name, decimals, created_at, updated_at) VALUES ($1, $2, $3, $4, 6, 0, 0)', [
                tokens,
                `addr${tokens}`,
                o.symbol,
                `Name ${tokens}`,
              ]);
            } else if (o.kind === 'rename') await both('UPDATE tokens SET symbol = $1 WHERE id = $2', [o.symbol, o.token]);
            else if (o.kind === 'market') {
              markets++;
              await both(
                `INSERT INTO markets (id, address, token_id, quote_address, quote_symbol, dex, liquidity_usd, created_at) VALUES ($1, $2, $3, 'q', 'SOL', $4, $5, 0)`,
                [markets, `m${markets}`, o.token, o.dex, o.liq],
              );
            } else if (o.kind === 'editMarket')
              await both('UPDATE markets SET token_id = $1, dex = $2, liquidity_usd = $3 WHERE id = $4', [o.token, o.dex, o.liq, o.market]);
            else if (o.kind === 'dropMarket') await both('DELETE FROM markets WHERE id = $1', [o.market]);
            else await both('DELETE FROM tokens WHERE id = $1', [o.token]);
          }
          const order = 'ORDER BY token_id, lower(dex), dex';
          const want = lite.prepare(`SELECT token_id, dex, liquidity_usd, address, symbol FROM udf_listing ${order}`).all();
          const got = await client.query(`SELECT token_id::int, dex, liquidity_usd, address, symbol FROM udf_listing ${order}`);
          expect(got.rows).toEqual(want);
        } finally {
          await client.query('ROLLBACK');
          lite.close();
        }
      }),
      { numRuns: 40 },
    );
  });
});

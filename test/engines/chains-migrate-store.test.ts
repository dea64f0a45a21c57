/**
 * Several chains through the CLI and `cli migrate-store` (docs/chains.md): `cli ingest` of one
 * file holding the same 0x token on base (the default chain here) and on ethereum stores two
 * tokens; a record on a chain outside CHAINS refuses the file with its line; migrate-store copies
 * the meta row `default_chain` with every other, so the PostgreSQL store keeps its default chain
 * and a CLI on it with another default is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import pg from 'pg';
import Database from 'better-sqlite3';
import { main } from '../../src/cli.js';
import { ndjson } from '../helpers/builders.js';
import { listing, TOKEN, MARKET, trade } from '../chains/two-chains.js';
import { freshDatabase, type FreshDatabase } from './support.js';

let dir: string;
let path: string;
let target: FreshDatabase;

async function cli(args: string[], env: Record<string, string>) {
  let out = '';
  let err = '';
  const code = await main(args, {
    stdout: (s) => void (out += s),
    stderr: (s) => void (err += s),
    stdin: Readable.from(['']),
    env: { LOG_LEVEL: 'silent', ...env },
  });
  return { code, out, err };
}

async function pgRows<R>(sql: string): Promise<R[]> {
  const c = new pg.Client({ connectionString: target.url });
  await c.connect();
  try {
    return (await c.query(sql)).rows as R[];
  } finally {
    await c.end();
  }
}

function sqliteRows<R>(sql: string): R[] {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare(sql).all() as R[];
  } finally {
    db.close();
  }
}

const TOKENS_SQL = 'SELECT address, symbol FROM tokens ORDER BY address';
const MARKETS_SQL = 'SELECT address, dex FROM markets ORDER BY address';
const STORED_TOKENS = [
  { address: TOKEN, symbol: 'BASEW' },
  { address: `ethereum:${TOKEN}`, symbol: 'ETHW' },
];
const STORED_MARKETS = [
  { address: MARKET, dex: 'uniswap-v2' },
  { address: `ethereum:${MARKET}`, dex: 'uniswap-v3' },
];
const REFUSED =
  "the store's default chain is base (its plain addresses are on base), but the configured default chain is ethereum: start with CHAINS beginning with base";

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'chains-migrate-'));
  path = join(dir, 'tokens.db');
  target = await freshDatabase('chains_migrate');
}, 60_000);

afterAll(async () => {
  await target?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('cli ingest and migrate-store with several chains', () => {
  it('ingests one file of two chains as two tokens, refusing a file with a chain outside CHAINS whole', async () => {
    const lite = { DATABASE_PATH: path, CHAINS: 'base,ethereum' };
    const bad = join(dir, 'bad.ndjson');
    writeFileSync(bad, ndjson([...listing('base'), { ...trade('base', 'p1', 1, 1, 10), chain: 'polygon' }]));
    const refused = await cli(['ingest', bad], lite);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('line 3: chain "polygon" is not one of CHAINS (base, ethereum)');
    expect(sqliteRows(TOKENS_SQL)).toEqual([]);

    const file = join(dir, 'two-chains.ndjson');
    // base records without `chain`: the default chain's, as a record naming it.
    const baseRecords = listing('base').map(({ chain: _, ...r }) => r);
    writeFileSync(
      file,
      ndjson([...baseRecords, ...listing('ethereum'), trade('base', 'b1', 2, 3, 10), trade('ethereum', 'e1', 5, 1, 20), trade('ethereum', 'e2', 6, 1, 30)]),
    );
    const done = await cli(['ingest', file, '--json'], lite);
    expect(done.code).toBe(0);
    expect(JSON.parse(done.out)).toMatchObject({ accepted: 7, duplicates: 0 });
    expect(sqliteRows(TOKENS_SQL)).toEqual(STORED_TOKENS);
    expect(sqliteRows(MARKETS_SQL)).toEqual(STORED_MARKETS);
    expect(sqliteRows("SELECT value FROM meta WHERE key = 'default_chain'")).toEqual([{ value: 'base' }]);
  });

  it("copies the store's default chain with its rows, so a PostgreSQL start with another default is refused", async () => {
    const copied = await cli(['migrate-store', '--to', target.url, '--json'], { DATABASE_PATH: path });
    expect(copied.code).toBe(0);
    expect(await pgRows("SELECT value FROM meta WHERE key = 'default_chain'")).toEqual([{ value: 'base' }]);
    expect(await pgRows(TOKENS_SQL)).toEqual(STORED_TOKENS);
    expect(await pgRows(MARKETS_SQL)).toEqual(STORED_MARKETS);
    expect(await pgRows('SELECT count(*)::int AS n FROM trades')).toEqual([{ n: 3 }]);

    const other = await cli(['tenants', 'list'], { DATABASE_URL: target.url, CHAINS: 'ethereum,base' });
    expect(other).toEqual({ code: 1, out: '', err: `error: ${REFUSED}\n` });
    const same = await cli(['tenants', 'list', '--json'], { DATABASE_URL: target.url, CHAINS: 'base,ethereum,solana' });
    expect(same.code).toBe(0);
  });
});

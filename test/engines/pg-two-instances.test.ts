/**
 * Two server processes on one PostgreSQL database, no Redis (docs/operations.md, Many
 * instances): batches ingested on both at once, the same trades sent to both, lose nothing and
 * store nothing twice (each trade accepted by exactly one instance, a duplicate on the other);
 * the candles add up to the trades; and what one instance ingests shows in the other's cached
 * reads and reaches its stream subscribers, through LISTEN/NOTIFY.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { main } from '../../src/cli.js';
import { aMarket, aToken, aTrade, ndjson } from '../helpers/builders.js';
import { Client } from '../stream/support.js';
import { freshDatabase, type FreshDatabase } from './support.js';
import { startServer, until, type Instance } from './instances.js';

let db: FreshDatabase;
let pool: pg.Pool;
let a: Instance;
let b: Instance;
let key: string;
const token = aToken({ name: 'Shared Postgres' });
const market = aMarket(token.address);
let blockTime = 1_700_000_300;
const trades = (n: number) => Array.from({ length: n }, () => aTrade(token.address, { market: market.address, blockTime: blockTime++, volumeUsd: 3 }));

async function ingest(i: Instance, records: unknown[]): Promise<{ accepted: number; duplicates: number }> {
  const res = await fetch(`${i.base}/v1/ingest`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/x-ndjson' },
    body: ndjson(records as never),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { accepted: number; duplicates: number };
}

const one = async (sql: string): Promise<number> => (await pool.query<{ n: number }>(sql)).rows[0]!.n;

beforeAll(async () => {
  db = await freshDatabase('two_pg');
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
  let out = '';
  const io = { stdout: (x: string) => (out += x), stderr: () => undefined, stdin: process.stdin, env: { DATABASE_URL: db.url } };
  expect(await main(['tenants', 'create', '--name', 'Two', '--plan', 'enterprise', '--json'], io)).toBe(0);
  const tenant = (JSON.parse(out) as { id: string }).id;
  out = '';
  expect(await main(['keys', 'create', '--tenant', tenant, '--scopes', 'read,manage,ingest', '--json'], io)).toBe(0);
  key = (JSON.parse(out) as { secret: string }).secret;
  const env = { DATABASE_URL: db.url, DEMO_DATA: 'off', DEMO_FEED: 'off' };
  [a, b] = await Promise.all([startServer('two-pg-a', env), startServer('two-pg-b', env)]);
}, 120_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await pool?.end();
  await db?.drop();
});

describe('two instances on one PostgreSQL database', () => {
  it('ingesting at once, the same trades on both, lose nothing and store nothing twice', async () => {
    await ingest(a, [token, market]);
    const batches = Array.from({ length: 8 }, () => trades(250));
    // Every batch goes to both instances at once; the batches themselves race each other too.
    const answers = await Promise.all(batches.flatMap((batch) => [ingest(a, batch), ingest(b, batch)]));
    const sent = batches.length * 250;
    expect(answers.reduce((n, r) => n + r.accepted, 0)).toBe(sent);
    expect(answers.reduce((n, r) => n + r.duplicates, 0)).toBe(sent);
    expect(await one('SELECT count(*)::int AS n FROM trades')).toBe(sent);
    expect(await one('SELECT count(DISTINCT (signature, idx))::int AS n FROM trades')).toBe(sent);
    // The derived views add up: the finest bars count every trade once, with its volume.
    expect(await one('SELECT sum(n)::int AS n FROM candles WHERE res = (SELECT min(res) FROM candles)')).toBe(sent);
    expect(await one('SELECT sum(v)::float8 AS n FROM candles WHERE res = (SELECT min(res) FROM candles)')).toBe(sent * 3);
  });

  it("shows an ingest on A in B's cached reads and streams it to B's subscribers", async () => {
    const overview = async () => ((await (await fetch(`${b.base}/v1/token/${token.address}/overview`)).json()) as { lastTradeAt: number }).lastTradeAt;
    const seen = await overview();
    expect(seen).toBe(blockTime - 1);
    const c = await Client.open(`ws://127.0.0.1:${b.port}/v1/stream`);
    const ok = await c.request({ op: 'subscribe', channel: 'trades', token: token.address });
    expect(ok.op).toBe('subscribed');
    const before = await one('SELECT max(id)::int AS n FROM trades');
    await ingest(a, trades(3));
    const ids = (await pool.query<{ id: number }>('SELECT id::int AS id FROM trades WHERE id > $1 ORDER BY id', [before])).rows.map((r) => r.id);
    expect(ids).toHaveLength(3);
    await until(overview, (t) => t === blockTime - 1, "B's overview shows A's trades");
    const streamed = () => c.of(String(ok.sub), 'trades').flatMap((m) => (m.trades as { id: number }[]).map((t) => t.id));
    await until(
      async () => streamed(),
      (got) => got.length >= 3,
      "B's subscriber gets A's trades",
    );
    expect(streamed()).toEqual(ids);
    c.close();
  });
});

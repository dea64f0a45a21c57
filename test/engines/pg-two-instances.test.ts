/**
 * Two server processes on one PostgreSQL database (docs/operations.md, Many instances), once
 * with no Redis (changes travel by LISTEN/NOTIFY) and once with a Redis of the test's own:
 * batches ingested on both at once, the same trades sent to both, lose nothing and store nothing
 * twice (each trade accepted by exactly one instance, a duplicate on the other); the candles add
 * up to the trades; what one instance ingests shows in the other's cached reads and reaches its
 * stream subscribers; a key revoked on one is refused by the other at its next request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { main } from '../../src/cli.js';
import { aMarket, aToken, aTrade, ndjson } from '../helpers/builders.js';
import { Client } from '../stream/support.js';
import { freshDatabase, type FreshDatabase } from './support.js';
import { health, ownRedis, startServer, until, type Instance, type OwnRedis } from './instances.js';

let db: FreshDatabase;
let pool: pg.Pool;
let a: Instance;
let b: Instance;
let redis: OwnRedis | null = null;
let key: string;
let cliEnv: Record<string, string> = {};
let blockTime = 1_700_000_300;
let dir: string;

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

describe.each([
  { bus: 'LISTEN/NOTIFY', withRedis: false },
  { bus: 'Redis', withRedis: true },
])('two instances on one PostgreSQL database, changes by $bus', ({ withRedis }) => {
  const token = aToken({ name: 'Shared Postgres' });
  const market = aMarket(token.address);
  const trades = (n: number) => Array.from({ length: n }, () => aTrade(token.address, { market: market.address, blockTime: blockTime++, volumeUsd: 3 }));

  beforeAll(async () => {
    db = await freshDatabase('two_pg');
    dir = mkdtempSync(join(tmpdir(), 'two-pg-'));
    pool = new pg.Pool({ connectionString: db.url, max: 2 });
    const env: Record<string, string> = { DATABASE_URL: db.url, DEMO_DATA: 'off', DEMO_FEED: 'off' };
    if (withRedis) {
      redis = await ownRedis();
      await redis.start();
      env.REDIS_URL = redis.url;
    }
    cliEnv = env;
    let out = '';
    const io = { stdout: (x: string) => (out += x), stderr: () => undefined, stdin: process.stdin, env };
    expect(await main(['tenants', 'create', '--name', 'Two', '--plan', 'enterprise', '--json'], io)).toBe(0);
    const tenant = (JSON.parse(out) as { id: string }).id;
    out = '';
    expect(await main(['keys', 'create', '--tenant', tenant, '--scopes', 'read,manage,ingest', '--json'], io)).toBe(0);
    key = (JSON.parse(out) as { secret: string }).secret;
    [a, b] = await Promise.all([startServer('two-pg-a', env), startServer('two-pg-b', env)]);
    await until(
      async () => [(await health(a)).body.status, (await health(b)).body.status],
      (st) => st.every((x) => x === 'ok'),
      'both instances are ok',
    );
  }, 120_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    redis?.kill();
    redis = null;
    await pool?.end();
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('say which store and bus they use', async () => {
    expect((await health(a)).body).toEqual({ status: 'ok', instance: 'two-pg-a', store: { kind: 'postgres', state: 'up' }, redis: withRedis ? 'up' : 'off' });
  });

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

  it("shows the CLI's ingest in both instances' cached reads (the CLI announces its commits on the bus)", async () => {
    const overview = async (i: Instance) =>
      ((await (await fetch(`${i.base}/v1/token/${token.address}/overview`)).json()) as { lastTradeAt: number }).lastTradeAt;
    expect([await overview(a), await overview(b)]).toEqual([blockTime - 1, blockTime - 1]);
    const file = join(dir, `cli-${withRedis ? 'redis' : 'pg'}.ndjson`);
    writeFileSync(file, ndjson(trades(2)));
    const io = { stdout: () => undefined, stderr: () => undefined, stdin: process.stdin, env: cliEnv };
    expect(await main(['ingest', file, '--json'], io)).toBe(0);
    for (const i of [a, b])
      await until(
        () => overview(i),
        (t) => t === blockTime - 1,
        `${i.id} shows the CLI's trades`,
      );
  });

  it('refuses on B, at its next request, a key revoked on A', async () => {
    const made = await fetch(`${a.base}/v1/keys`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: '{"name":"k"}' });
    expect(made.status).toBe(201);
    const k = (await made.json()) as { key: { id: string }; secret: string };
    expect((await fetch(`${b.base}/v1/tokens/registered`, { headers: { 'x-api-key': k.secret } })).status).toBe(200);
    expect((await fetch(`${a.base}/v1/keys/${k.key.id}`, { method: 'DELETE', headers: { 'x-api-key': key } })).status).toBe(200);
    const res = await fetch(`${b.base}/v1/tokens/registered`, { headers: { 'x-api-key': k.secret } });
    expect(res.status).toBe(401);
  });
});

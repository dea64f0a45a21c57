/**
 * PostgreSQL out of reach (docs/operations.md, Many instances: faults): a server process reaches
 * its database through a proxy the test closes. Meanwhile reads, a presented key and an ingest
 * answer 503 `unavailable` with Retry-After (never 401, never 500), /healthz says down, and
 * nothing of an ingest is written; once the proxy is open again the instance answers by itself.
 * Its sessions terminated by the server (pg_terminate_backend) mid-ingest leave a batch whole or
 * absent, and the instance carries on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { main } from '../../src/cli.js';
import { aMarket, aToken, aTrade, ndjson } from '../helpers/builders.js';
import { databaseUrl, freshDatabase, type FreshDatabase } from './support.js';
import { health, startServer, until, type Instance } from './instances.js';
import { pgProxy, type PgProxy } from './pg-proxy.js';

let db: FreshDatabase;
let pool: pg.Pool;
let proxy: PgProxy;
let s: Instance;
let key: string;
const token = aToken();
const market = aMarket(token.address);
let blockTime = 1_700_000_300;
const trades = (n: number) => Array.from({ length: n }, () => aTrade(token.address, { market: market.address, blockTime: blockTime++ }));

const tradeCount = async (): Promise<number> => (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM trades')).rows[0]!.n;

/** A request that must be answered within the 5 s the contract gives (an abort fails the test). */
const call = (path: string, init: RequestInit = {}) => fetch(`${s.base}${path}`, { ...init, signal: AbortSignal.timeout(5000) });
const post = (records: unknown[]) =>
  call('/v1/ingest', { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/x-ndjson' }, body: ndjson(records as never) });

async function expectUnavailable(res: Response): Promise<void> {
  expect(res.status).toBe(503);
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unavailable');
}

beforeAll(async () => {
  db = await freshDatabase('unavailable');
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
  proxy = await pgProxy(databaseUrl());
  await proxy.open();
  // The CLI migrates the fresh database and makes the key.
  let out = '';
  const io = { stdout: (x: string) => (out += x), stderr: () => undefined, stdin: process.stdin, env: { DATABASE_URL: db.url } };
  expect(await main(['tenants', 'create', '--name', 'Faults', '--plan', 'enterprise', '--json'], io)).toBe(0);
  const tenant = (JSON.parse(out) as { id: string }).id;
  out = '';
  expect(await main(['keys', 'create', '--tenant', tenant, '--scopes', 'read,manage,ingest', '--json'], io)).toBe(0);
  key = (JSON.parse(out) as { secret: string }).secret;
  s = await startServer('pg-faults', { DATABASE_URL: proxy.via(db.url), DEMO_DATA: 'off', DEMO_FEED: 'off' });
  expect((await post([token, market, ...trades(3)])).status).toBe(200);
}, 120_000);

afterAll(async () => {
  await s?.stop();
  await proxy?.close();
  await pool?.end();
  await db?.drop();
});

describe('PostgreSQL out of reach', () => {
  it('answers 503 unavailable with Retry-After, never 401 for a key, writes nothing, and recovers by itself', async () => {
    const read = `/v1/token/${token.address}/overview`;
    expect((await call(read)).status).toBe(200);
    const before = await tradeCount();
    await proxy.close();
    // Once its change bus is down the instance serves nothing from its caches (they may have
    // missed a change): every read goes to the database.
    await until(
      async () => s.stderr(),
      (err) => /the postgres change bus is down/.test(err),
      'the instance sees its change bus down',
    );

    await expectUnavailable(await call(read));
    await expectUnavailable(await call('/v1/tokens/registered', { headers: { 'x-api-key': key } }));
    await expectUnavailable(await post(trades(2)));
    await expectUnavailable(await call(`/udf/history?symbol=${token.address}&resolution=1&from=1700000000&to=1800000000`));
    const down = await call('/healthz');
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({ status: 'down', instance: 'pg-faults', store: { kind: 'postgres', state: 'down' }, redis: 'off' });

    await proxy.open();
    await until(
      () => health(s),
      (h) => h.code === 200,
      'the instance answers again',
    );
    expect((await health(s)).body).toEqual({ status: 'ok', instance: 'pg-faults', store: { kind: 'postgres', state: 'up' }, redis: 'off' });
    expect(await tradeCount()).toBe(before);
    expect((await call(read)).status).toBe(200);
    expect((await call('/v1/tokens/registered', { headers: { 'x-api-key': key } })).status).toBe(200);
    expect((await post(trades(2))).status).toBe(200);
    expect(await tradeCount()).toBe(before + 2);
  });

  it('keeps a batch whole or absent when its sessions are terminated mid-ingest, and carries on', async () => {
    const before = await tradeCount();
    const batch = trades(3000);
    const answer = post(batch);
    // Terminate every session of the instance while the batch is being written (or just after).
    await until(
      async () =>
        (await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'pg-faults' AND state = 'active'`)).rows[0]!
          .n,
      (n) => n > 0,
      'the ingest is running',
    ).catch(() => 0);
    await pool.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE 'pg-faults%'`);
    const res = await answer;
    expect([200, 503]).toContain(res.status);
    const after = await tradeCount();
    expect(after - before).toBe(res.status === 200 ? 3000 : 0);
    await until(
      async () => (await post(trades(1))).status,
      (code) => code === 200,
      'the instance writes again',
    );
    expect(await tradeCount()).toBe(after + 1);
    await until(
      () => health(s),
      (h) => h.body.status === 'ok',
      'the change bus listens again',
    );
  });
});

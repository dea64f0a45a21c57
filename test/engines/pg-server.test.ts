/**
 * The server and the CLI on PostgreSQL (docs/operations.md, Many instances): a server process
 * started with DATABASE_URL on a fresh database migrates it, loads the demo data and says
 * `"kind":"postgres"` on /healthz; the CLI with DATABASE_URL makes the tenant and key and ingests
 * a file; an ingest over HTTP or by the CLI shows in the server's reads (token overview, trades,
 * /udf/history) right after, caches included, and reaches a stream subscriber with the exact
 * trade ids; the webhook worker delivers its events (the outbox's claimDue path). No Redis: the
 * CLI's commits reach the server through LISTEN/NOTIFY.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { main } from '../../src/cli.js';
import { DEMO_DEFAULTS } from '../../src/services/demo.js';
import { aMarket, aToken, aTrade, ndjson } from '../helpers/builders.js';
import { Client } from '../stream/support.js';
import { startReceiver } from '../subscriptions/receiver.js';
import { freshDatabase, type FreshDatabase } from './support.js';
import { health, startServer, until, type Instance } from './instances.js';

let db: FreshDatabase;
let pool: pg.Pool;
let s: Instance;
let dir: string;
let ingestKey: string;
const token = aToken({ name: 'Postgres Served' });
const market = aMarket(token.address);
let blockTime = 1_700_000_300;
const trades = (n: number) =>
  Array.from({ length: n }, () => aTrade(token.address, { market: market.address, blockTime: (blockTime += 60), priceUsd: blockTime / 1e6 }));

/** Runs the CLI in this process against the test database; its JSON output. */
async function cli(argv: string[]): Promise<{ code: number; doc: Record<string, unknown>; stderr: string }> {
  let out = '';
  let err = '';
  const code = await main([...argv, '--json'], {
    stdout: (x) => (out += x),
    stderr: (x) => (err += x),
    stdin: process.stdin,
    env: { DATABASE_URL: db.url, LOG_LEVEL: 'silent' },
  });
  return { code, doc: out === '' ? {} : (JSON.parse(out) as Record<string, unknown>), stderr: err };
}

const ids = async (after: number): Promise<number[]> =>
  (await pool.query<{ id: number }>('SELECT id::int AS id FROM trades WHERE id > $1 ORDER BY id', [after])).rows.map((r) => r.id);
const maxTradeId = async (): Promise<number> => (await pool.query<{ n: number }>('SELECT coalesce(max(id), 0)::int AS n FROM trades')).rows[0]!.n;

async function ingest(records: unknown[]): Promise<{ accepted: number; duplicates: number }> {
  const res = await fetch(`${s.base}/v1/ingest`, {
    method: 'POST',
    headers: { 'x-api-key': ingestKey, 'content-type': 'application/x-ndjson' },
    body: ndjson(records as never),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { accepted: number; duplicates: number };
}

const json = async <T>(path: string): Promise<T> => {
  const res = await fetch(`${s.base}${path}`);
  expect(res.status).toBe(200);
  return (await res.json()) as T;
};
const overview = () => json<{ lastTradeAt: number; priceUsd: number }>(`/v1/token/${token.address}/overview`);
const tradeIds = async () => (await json<{ trades: { id: number }[] }>(`/v1/token/${token.address}/trades?limit=100`)).trades.map((t) => t.id);
const history = () => json<{ s: string; t?: number[]; c?: number[] }>(`/udf/history?symbol=${token.address}&resolution=1&from=1700000000&to=1800000000`);

beforeAll(async () => {
  db = await freshDatabase('server');
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
  dir = mkdtempSync(join(tmpdir(), 'pg-server-'));
  s = await startServer('pg-a', { DATABASE_URL: db.url, DEMO_DATA: 'auto', DEMO_FEED: 'off', WEBHOOK_ALLOW_PRIVATE: 'true' });
}, 120_000);

afterAll(async () => {
  await s?.stop();
  await pool?.end();
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a server process with DATABASE_URL on a fresh database', () => {
  it('migrates it, loads the demo data and reports the store as postgres', async () => {
    expect(await health(s)).toEqual({ code: 200, body: { status: 'ok', instance: 'pg-a', store: { kind: 'postgres', state: 'up' }, redis: 'off' } });
    const migrations = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM store_migrations');
    expect(migrations.rows[0]!.n).toBeGreaterThan(0);
    const demo = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM tokens WHERE is_demo = 1');
    expect(demo.rows[0]!.n).toBe(DEMO_DEFAULTS.tokens);
    expect((await pool.query(`SELECT value FROM meta WHERE key = 'demo'`)).rows).toHaveLength(1);
    expect(s.stderr()).toMatch(/loaded demo data into the empty store/);
  });

  it('takes the tenant and key the CLI made with DATABASE_URL', async () => {
    const tenant = await cli(['tenants', 'create', '--name', 'Engines', '--plan', 'enterprise']);
    expect(tenant.code).toBe(0);
    const key = await cli(['keys', 'create', '--tenant', String(tenant.doc.id), '--scopes', 'read,manage,ingest']);
    expect(key.code).toBe(0);
    ingestKey = String(key.doc.secret);
    const res = await fetch(`${s.base}/v1/tokens/registered`, { headers: { 'x-api-key': ingestKey } });
    expect(res.status).toBe(200);
  });

  it('shows an HTTP ingest in the next reads, cached ones included, and streams its trades', async () => {
    expect(await ingest([token, market, ...trades(2)])).toEqual({ accepted: 4, duplicates: 0 });
    // Warm every cache of the token, then ingest more.
    const first = await overview();
    expect(first.lastTradeAt).toBe(blockTime);
    expect(await tradeIds()).toHaveLength(2);
    expect((await history()).t).toHaveLength(2);
    const c = await Client.open(`ws://127.0.0.1:${s.port}/v1/stream`);
    const ok = await c.request({ op: 'subscribe', channel: 'trades', token: token.address });
    expect(ok.op).toBe('subscribed');
    const before = await maxTradeId();
    expect(await ingest(trades(3))).toEqual({ accepted: 3, duplicates: 0 });
    const added = await ids(before);
    expect(added).toHaveLength(3);
    expect((await overview()).lastTradeAt).toBe(blockTime);
    expect((await tradeIds()).slice(0, 3)).toEqual([...added].reverse());
    const bars = await history();
    expect(bars.t).toHaveLength(5);
    expect(bars.c!.at(-1)).toBe(blockTime / 1e6);
    const streamed = () => c.of(String(ok.sub), 'trades').flatMap((m) => (m.trades as { id: number }[]).map((t) => t.id));
    await until(
      async () => streamed(),
      (got) => got.length >= 3,
      'the subscriber gets the three trades',
    );
    expect(streamed()).toEqual(added);
    c.close();
  });

  it("shows the CLI's ingest of a file in the server's reads and stream (LISTEN/NOTIFY, no Redis)", async () => {
    const c = await Client.open(`ws://127.0.0.1:${s.port}/v1/stream`);
    const ok = await c.request({ op: 'subscribe', channel: 'trades', token: token.address });
    expect((await overview()).lastTradeAt).toBe(blockTime);
    expect((await history()).t).toHaveLength(5);
    const before = await maxTradeId();
    const file = join(dir, 'more.ndjson');
    writeFileSync(file, ndjson(trades(4)));
    const run = await cli(['ingest', file]);
    expect(run).toMatchObject({ code: 0, doc: { accepted: 4, duplicates: 0 } });
    const added = await ids(before);
    expect(added).toHaveLength(4);
    // Cached answers were dropped by the notice, which went out before the CLI returned.
    await until(
      async () => (await overview()).lastTradeAt,
      (t) => t === blockTime,
      'the overview shows the CLI trades',
    );
    expect((await history()).t).toHaveLength(9);
    expect((await tradeIds()).slice(0, 4)).toEqual([...added].reverse());
    const streamed = () => c.of(String(ok.sub), 'trades').flatMap((m) => (m.trades as { id: number }[]).map((t) => t.id));
    await until(
      async () => streamed(),
      (got) => got.length >= 4,
      'the subscriber gets the CLI trades',
    );
    expect(streamed()).toEqual(added);
    c.close();
  });

  it('refuses a CLI file with a bad record whole, writing nothing', async () => {
    const before = await maxTradeId();
    const file = join(dir, 'bad.ndjson');
    writeFileSync(file, ndjson([...trades(2), { type: 'trade', token: token.address }]));
    const run = await cli(['ingest', file]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/line 3: .*nothing of it was written/s);
    expect(await ids(before)).toEqual([]);
  });

  it('refuses a CLI file whose trade names a market neither stored nor earlier in it, naming the line, writing nothing', async () => {
    const before = await maxTradeId();
    const markets = async () => (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM markets')).rows[0]!.n;
    const marketsBefore = await markets();
    const file = join(dir, 'stray.ndjson');
    // The stray market's record comes after the trade that names it: it does not count.
    const stray = aMarket(token.address);
    writeFileSync(file, ndjson([...trades(1), aTrade(token.address, { market: stray.address, blockTime: (blockTime += 60) }), stray]));
    const run = await cli(['ingest', file]);
    expect(run.code).toBe(1);
    const lines = run.stderr.trim().split('\n');
    expect(lines.filter((l) => / line \d+: /.test(l))).toEqual([`${file}: line 2: unknown market ${stray.address}`]);
    expect(lines.at(-1)).toMatch(/1 invalid record\(s\); nothing of it was written$/);
    expect(await ids(before)).toEqual([]);
    expect(await markets()).toBe(marketsBefore);
  });

  it('delivers the events of an ingest to a registered webhook, from the PostgreSQL outbox', async () => {
    const receiver = await startReceiver([204]);
    try {
      const reg = await fetch(`${s.base}/v1/tokens/register`, {
        method: 'POST',
        headers: { 'x-api-key': ingestKey, 'content-type': 'application/json' },
        body: JSON.stringify({ address: token.address, webhookUrl: receiver.url() }),
      });
      expect(reg.status).toBe(201);
      const before = await maxTradeId();
      await ingest(trades(2));
      const added = await ids(before);
      await until(
        async () => receiver.received.length,
        (n) => n >= 1,
        'the webhook is called',
      );
      const body = JSON.parse(receiver.received[0]!.body) as { token: string; data: { trades: { id: number }[] } };
      expect(body.token).toBe(token.address);
      expect(body.data.trades.map((t) => t.id)).toEqual(added);
      await until(
        async () => (await pool.query<{ status: string }>('SELECT status FROM webhook_deliveries')).rows.map((r) => r.status),
        (st) => st.length === 1 && st[0] === 'delivered',
        'the delivery is recorded as delivered',
      );
    } finally {
      await receiver.close();
    }
  });

  it('removes the demo data with the CLI (the server drops it from its caches) and refuses a SQLite backup', async () => {
    const demoToken = (await pool.query<{ address: string }>('SELECT address FROM tokens WHERE is_demo = 1 ORDER BY id LIMIT 1')).rows[0]!.address;
    expect((await fetch(`${s.base}/v1/token/${demoToken}/overview`)).status).toBe(200);
    const removed = await cli(['demo', '--remove']);
    expect(removed).toMatchObject({ code: 0, doc: { tokens: DEMO_DEFAULTS.tokens } });
    await until(
      async () => (await fetch(`${s.base}/v1/token/${demoToken}/overview`)).status,
      (code) => code === 404,
      'the server forgets the demo token',
    );
    expect((await fetch(`${s.base}/v1/token/${token.address}/overview`)).status).toBe(200);
    const backup = await cli(['backup', join(dir, 'copy.db')]);
    expect(backup.code).toBe(1);
    expect(backup.stderr).toMatch(/DATABASE_URL names a PostgreSQL store: back it up with pg_dump/);
  });
});

/**
 * A webhook delivery whose instance dies mid-attempt is not lost (docs/operations.md, Many
 * instances: work done once): instance A claims the delivery and posts it to a receiver that
 * never answers; A is killed (SIGKILL) while the request hangs; instance B, on the same
 * PostgreSQL database, takes the delivery once A's lease has run out (within 70 s) and delivers
 * it. The event is posted twice (only a delivery in flight at a death can be), with the same event
 * id, and is marked delivered once the receiver answers 2xx, not before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { main } from '../../src/cli.js';
import { aMarket, aToken, aTrade, ndjson } from '../helpers/builders.js';
import { startReceiver, type Receiver } from '../subscriptions/receiver.js';
import { freshDatabase, type FreshDatabase } from './support.js';
import { startServer, until, type Instance } from './instances.js';

let db: FreshDatabase;
let pool: pg.Pool;
let a: Instance;
let b: Instance | null = null;
let receiver: Receiver;
let key: string;
const token = aToken({ name: 'Failover Hooked' });
const market = aMarket(token.address);
const env = () => ({ DATABASE_URL: db.url, DEMO_DATA: 'off', DEMO_FEED: 'off', WEBHOOK_ALLOW_PRIVATE: 'true' });

async function cli(argv: string[]): Promise<Record<string, unknown>> {
  let out = '';
  const code = await main([...argv, '--json'], {
    stdout: (x) => (out += x),
    stderr: () => undefined,
    stdin: process.stdin,
    env: { DATABASE_URL: db.url, LOG_LEVEL: 'silent' },
  });
  expect(code).toBe(0);
  return JSON.parse(out) as Record<string, unknown>;
}

async function post(path: string, body: string, type: string): Promise<number> {
  const res = await fetch(`${a.base}${path}`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': type }, body });
  await res.arrayBuffer();
  return res.status;
}

const statuses = async (): Promise<{ status: string; attempts: number }[]> =>
  (await pool.query<{ status: string; attempts: number }>('SELECT status, attempts::int AS attempts FROM webhook_deliveries ORDER BY id')).rows;

beforeAll(async () => {
  db = await freshDatabase('webhook_failover');
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
  a = await startServer('wh-a', env());
  const tenant = await cli(['tenants', 'create', '--name', 'Hooks', '--plan', 'pro']);
  key = (await cli(['keys', 'create', '--tenant', String(tenant.id), '--scopes', 'read,manage,ingest'])).secret as string;
  receiver = await startReceiver([0, 204]);
}, 120_000);

afterAll(async () => {
  await a?.stop();
  await b?.stop();
  await receiver?.close();
  await pool?.end();
  await db?.drop();
});

describe('a webhook delivery claimed by an instance that dies', () => {
  it('is delivered by another instance once the lease runs out, and marked delivered only then', async () => {
    expect(await post('/v1/ingest', ndjson([token, market]), 'application/x-ndjson')).toBe(200);
    expect(await post('/v1/tokens/register', JSON.stringify({ address: token.address, webhookUrl: receiver.url() }), 'application/json')).toBe(201);
    expect(await post('/v1/ingest', ndjson([aTrade(token.address, { market: market.address, blockTime: 1_700_000_100 })]), 'application/x-ndjson')).toBe(200);

    // A's attempt hangs at the receiver: A dies in the middle of it.
    await until(
      async () => receiver.received.length,
      (n) => n === 1,
      'A posts the delivery',
    );
    a.child.kill('SIGKILL');
    await a.exit;
    expect(await statuses()).toEqual([{ status: 'pending', attempts: 0 }]);

    b = await startServer('wh-b', env());
    await until(
      async () => receiver.received.length,
      (n) => n === 2,
      'B posts the delivery again after the lease',
      4000,
    );
    await until(statuses, (rows) => rows.length === 1 && rows[0]!.status === 'delivered', 'the delivery is recorded as delivered');
    const [first, second] = receiver.received;
    expect(second!.body).toBe(first!.body);
    expect(second!.headers['svc-event-id']).toBe(first!.headers['svc-event-id']);
    expect(receiver.received).toHaveLength(2);
  }, 150_000);
});

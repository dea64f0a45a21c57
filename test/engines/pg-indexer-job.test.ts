/**
 * The indexer as a server job on PostgreSQL (docs/indexer.md, Running it): two instances with
 * the same INDEXER_CONFIG on one database; exactly one runs the indexer (the `indexer` job lock),
 * both report it on /healthz, and when that one is killed (SIGKILL) the other takes the job over
 * and indexes on from the committed position, with every trade stored once.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { JOB_LOCK_CLASS, JOBS } from '../../src/store/pg/job-lock.js';
import { freshDatabase, type FreshDatabase } from './support.js';
import { startServer, until, type Instance } from './instances.js';
import { buildScenario, type Scenario } from '../helpers/chain/scenario.js';
import { Oracle } from '../helpers/chain/oracle.js';
import { parseUnits, type Address } from 'viem';
import { swapV2 } from '../../src/devnet/dex.js';

let db: FreshDatabase;
let pool: pg.Pool;
let s: Scenario;
let dir: string;
let a: Instance;
let b: Instance;

async function holder(): Promise<string | null> {
  const { rows } = await pool.query<{ name: string }>(
    `SELECT a.application_name AS name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
     WHERE l.locktype = 'advisory' AND l.granted AND l.classid = $1 AND l.objid = $2 AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    [JOB_LOCK_CLASS, JOBS.indexer],
  );
  return rows[0]?.name.split(' ')[0] ?? null;
}

const position = async (): Promise<number> =>
  (await pool.query<{ n: number }>(`SELECT coalesce(max(number), -1)::int AS n FROM indexer_positions WHERE chain = 'devnet'`)).rows[0]!.n;
const trades = async (): Promise<string[]> =>
  (await pool.query<{ k: string }>(`SELECT signature || ':' || idx AS k FROM trades ORDER BY id`)).rows.map((r) => r.k);

beforeAll(async () => {
  s = await buildScenario({ chain: 'devnet' });
  dir = mkdtempSync(join(tmpdir(), 'pg-indexer-job-'));
  const file = join(dir, 'indexer.json');
  writeFileSync(file, JSON.stringify({ chains: [{ ...s.config, pollMs: 200 }] }));
  db = await freshDatabase('indexerjob');
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
  const env = { DATABASE_URL: db.url, DEMO_DATA: 'off', DEMO_FEED: 'off', CHAIN: 'devnet', INDEXER_CONFIG: file };
  [a, b] = await Promise.all([startServer('idx-a', env), startServer('idx-b', env)]);
}, 180_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await pool?.end();
  await db?.drop();
  await s?.stop();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('the indexer job on two instances of one PostgreSQL database', () => {
  it('runs on one instance and moves to the other when it is killed, losing and doubling nothing', async () => {
    const runner = await until(holder, (h) => h !== null, 'an instance holds the indexer job');
    expect(['idx-a', 'idx-b']).toContain(runner);
    await until(position, (n) => n >= s.endBlock, 'the chain is indexed to its last block');
    const [gone, other] = runner === 'idx-a' ? [a, b] : [b, a];
    const seen = (await (await fetch(`${other.base}/healthz`)).json()) as { indexers: { chain: string; indexed: number }[] };
    expect(seen.indexers).toEqual([{ chain: 'devnet', head: s.endBlock, indexed: s.endBlock, lag: 0, state: 'following' }]);

    const before = (await trades()).length;
    gone.child.kill('SIGKILL');
    await gone.exit;
    // Swaps made while nobody indexes: the other instance takes the job and catches up.
    const { tokens: t, dex, traders } = s.world;
    await swapV2(s.chain, dex, traders[0] as Address, [t.usdc, t.weth], parseUnits('250', 6));
    await swapV2(s.chain, dex, traders[1] as Address, [t.alpha, t.weth, t.usdc], parseUnits('100', 18));
    const last = await s.chain.blockNumber();
    expect(await until(holder, (h) => h === other.id, `${other.id} takes the indexer job`, 800)).toBe(other.id);
    await until(position, (n) => n >= last, `${other.id} indexes the new blocks`, 800);
    const expected = await new Oracle(s.anvil.rpcUrl).expect(s.config, last);
    // One swap, then a two-hop swap: three new trades.
    expect(expected.trades.length).toBe(before + 3);
    expect(await trades()).toEqual(expected.trades.map((t) => `${t.signature}:${t.index}`));
    expect(other.stderr()).toMatch(/this instance runs the indexer job/);
  }, 120_000);
});

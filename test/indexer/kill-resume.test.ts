/**
 * Crash safety of the indexer (issue 29): `cli index` runs as a child process over the scenario's
 * node and is killed with SIGKILL at three moments of its backfill (while reading the pools before
 * any trade, and twice among the trades); after each kill the stored trades are exactly the
 * oracle's trades up to the stored position (the position commits with its blocks' data), and a
 * last run to --until completes the store, which then equals the naive oracle: nothing lost or
 * doubled. On SQLite (a file the child writes) and, with the postgres config, on PostgreSQL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/sqlite/db.js';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { testEngine } from '../helpers/pg-test-store.js';
import { buildScenario, type Scenario } from '../helpers/chain/scenario.js';
import { Oracle, type Expected } from '../helpers/chain/oracle.js';
import { expectStoreMatchesOracle } from '../helpers/chain/compare.js';

let s: Scenario;
let e: Expected;
let t: TestApp;
let dir: string;
const childEnv: Record<string, string> = {};
const children: ChildProcess[] = [];

beforeAll(async () => {
  s = await buildScenario({ chain: 'devnet' });
  e = await new Oracle(s.anvil.rpcUrl).expect(s.config, s.endBlock);
  dir = mkdtempSync(join(tmpdir(), 'kill-resume-'));
  const base = { CHAIN: 'devnet', LOG_LEVEL: 'silent', DEMO_DATA: 'off', DEMO_FEED: 'off' };
  if (testEngine() === 'postgres') {
    t = makeTestApp({ env: { CHAIN: 'devnet' } });
    const [row] = await t.sql<{ db: string }>('SELECT current_database() AS db');
    const url = new URL(process.env.TEST_DATABASE_URL as string);
    url.pathname = `/${row?.db}`;
    Object.assign(childEnv, base, { DATABASE_URL: url.toString() });
  } else {
    const file = join(dir, 'tokens.db');
    t = makeTestApp({ store: openStore(file), env: { CHAIN: 'devnet' } });
    Object.assign(childEnv, base, { DATABASE_PATH: file });
  }
  // Slow and narrow on purpose: many small commits, so a kill lands inside the backfill.
  writeFileSync(join(dir, 'indexer.json'), JSON.stringify({ chains: [{ ...s.config, requestsPerSecond: 80, maxBlockRange: 3 }] }));
}, 120_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await t?.close();
  await s?.stop();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

function cliIndex(until: number): { child: ChildProcess; exited: Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }> } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'index', '--config', join(dir, 'indexer.json'), '--until', String(until), '--json'], {
    env: { ...process.env, ...childEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => void (stdout += c.toString()));
  child.stderr?.on('data', (c: Buffer) => void (stderr += c.toString()));
  const exited = new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, exited };
}

async function stored(): Promise<{ position: number; trades: number }> {
  const [pos] = await t.sql<{ number: number | string }>("SELECT number FROM indexer_positions WHERE chain = 'devnet'");
  const [n] = await t.sql<{ n: number | string }>('SELECT count(*) AS n FROM trades');
  return { position: pos === undefined ? -1 : Number(pos.number), trades: Number(n?.n ?? 0) };
}

/** Runs `cli index` until `ready` holds of the store, then kills it with SIGKILL. */
async function killWhen(ready: (st: { position: number; trades: number }) => boolean): Promise<{ position: number; trades: number }> {
  const run = cliIndex(s.endBlock);
  for (;;) {
    if (ready(await stored())) break;
    if (run.child.exitCode !== null) throw new Error(`cli index finished before the kill: ${(await run.exited).stderr.slice(-500)}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  run.child.kill('SIGKILL');
  const end = await run.exited;
  expect(end.signal).toBe('SIGKILL');
  return stored();
}

describe('kill -9 of cli index mid-backfill', () => {
  it('resumes from the committed position with nothing lost or doubled', async () => {
    const seen: { position: number; trades: number }[] = [];
    seen.push(await killWhen((st) => st.position > s.world.dex.firstBlock && st.position < s.startBlock - 20));
    seen.push(await killWhen((st) => st.trades >= 3));
    seen.push(await killWhen((st) => st.trades >= 12));
    for (const st of seen) {
      // The trades stored are exactly those of the blocks up to the position: committed together.
      expect([st.position, st.trades]).toEqual([st.position, e.trades.filter((x) => x.blockNumber <= st.position).length]);
    }
    expect(seen.map((st) => st.position)).toEqual([...seen.map((st) => st.position)].sort((a, b) => a - b));

    const last = await cliIndex(s.endBlock).exited;
    expect([last.code, last.stderr]).toEqual([0, '']);
    const summary = JSON.parse(last.stdout) as { chains: { chain: string; toBlock: number; trades: number }[] };
    expect(summary.chains.map((c) => [c.chain, c.toBlock, c.trades])).toEqual([
      ['devnet', s.endBlock, e.trades.length - (seen[2] as { trades: number }).trades],
    ]);

    await t.settled();
    const newest = await s.chain.client.getBlock({ blockNumber: BigInt(s.endBlock) });
    t.clock.set(Number(newest.timestamp) * 1000);
    await expectStoreMatchesOracle(t, e);
  }, 240_000);
});

/**
 * Crash safety of a reorg's handling (docs/indexer.md, Reorgs): `cli index` runs as a child
 * process over the scenario's node (through the fault proxy, which counts its calls) after a
 * 3-block anvil_reorg of blocks it indexed, and is killed with SIGKILL while it handles the reorg:
 * once in the middle of its search for the common ancestor (nothing may have changed) and once
 * just after the retraction committed (the position rolled back to the ancestor, the new branch
 * not indexed yet), where the stored trades must be exactly the canonical chain's up to the
 * position. A last run to --until then
 * leaves every read equal to the naive oracle of the canonical chain. On SQLite (a file the child
 * writes) and, with the postgres config, on PostgreSQL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEther, parseUnits, type Address } from 'viem';
import { openStore } from '../../src/store/sqlite/db.js';
import { swapV2, swapV2Request } from '../../src/devnet/dex.js';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { testEngine } from '../helpers/pg-test-store.js';
import { buildScenario, type Scenario } from '../helpers/chain/scenario.js';
import { Oracle } from '../helpers/chain/oracle.js';
import { startFaultProxy, type FaultProxy } from '../helpers/chain/fault-proxy.js';
import { expectEveryRead } from '../helpers/chain/compare.js';

let s: Scenario;
let proxy: FaultProxy;
let t: TestApp;
let dir: string;
const childEnv: Record<string, string> = {};
const children: ChildProcess[] = [];

beforeAll(async () => {
  s = await buildScenario({ chain: 'devnet' });
  proxy = await startFaultProxy(s.anvil.rpcUrl, s.anvil.wsUrl);
  dir = mkdtempSync(join(tmpdir(), 'kill-reorg-'));
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
  // Slow on purpose (calls 40 ms apart): a reorg's handling spans many calls, so kills land inside it.
  writeFileSync(join(dir, 'indexer.json'), JSON.stringify({ chains: [{ ...s.config, rpcUrl: proxy.url, reorgDepth: 8, requestsPerSecond: 25 }] }));
  writeFileSync(join(dir, 'fast.json'), JSON.stringify({ chains: [{ ...s.config, reorgDepth: 8 }] }));
}, 120_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await t?.close();
  await proxy?.close();
  await s?.stop();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

type Exit = { code: number | null; signal: string | null; stdout: string; stderr: string };

function cliIndex(file: string, until: number): { child: ChildProcess; exited: Promise<Exit> } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'index', '--config', join(dir, file), '--until', String(until), '--json'], {
    env: { ...process.env, ...childEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => void (stdout += c.toString()));
  child.stderr?.on('data', (c: Buffer) => void (stderr += c.toString()));
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, exited };
}

async function stored(): Promise<{ position: number; trades: string[] }> {
  const [pos] = await t.sql<{ number: number | string }>("SELECT number FROM indexer_positions WHERE chain = 'devnet'");
  const rows = await t.sql<{ signature: string; idx: number | string }>('SELECT signature, idx FROM trades ORDER BY id');
  return { position: pos === undefined ? -1 : Number(pos.number), trades: rows.map((r) => `${r.signature}:${Number(r.idx)}`).sort() };
}

/** Waits until `ready`, throwing if the run ends first. */
async function until(ready: () => boolean | Promise<boolean>, run: { child: ChildProcess; exited: Promise<Exit> }): Promise<void> {
  for (;;) {
    if (await ready()) return;
    if (run.child.exitCode !== null) throw new Error(`cli index finished before the kill: ${(await run.exited).stderr.slice(-500)}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

async function indexTo(until: number): Promise<Exit> {
  const end = await cliIndex('fast.json', until).exited;
  expect([end.code, end.stderr]).toEqual([0, '']);
  return end;
}

describe('kill -9 of cli index while it handles a reorg', () => {
  it('resumes to a store equal to the canonical chain, nothing orphaned left and nothing lost', async () => {
    const { chain, dex, tokens, traders } = s.world;
    const [w1, w2, w3] = traders as [Address, Address, Address];
    await indexTo(s.endBlock);
    // Three blocks of swaps, indexed, then replaced by a branch of other swaps.
    await swapV2(chain, dex, w1, [tokens.weth, tokens.alpha], parseEther('0.2'));
    await swapV2(chain, dex, w2, [tokens.usdc, tokens.beta], parseUnits('300', 6));
    await swapV2(chain, dex, w3, [tokens.alpha, tokens.weth], parseUnits('900', 18));
    const top = await chain.blockNumber();
    await indexTo(top);
    const orphaned = (await stored()).trades;
    await chain.reorg(3, [
      { tx: swapV2Request(chain, dex, w3, [tokens.usdc, tokens.weth], parseUnits('250', 6)), block: 0 },
      { tx: swapV2Request(chain, dex, w1, [tokens.beta, tokens.usdc], parseUnits('4000', 9)), block: 2 },
    ]);
    await chain.mine(1);
    const head = await chain.blockNumber();
    const canonical = await new Oracle(s.anvil.rpcUrl).expect(s.config, head);
    const canonicalUpTo = (n: number) =>
      canonical.trades
        .filter((x) => x.blockNumber <= n)
        .map((x) => `${x.signature}:${x.index}`)
        .sort();

    // Killed while it searches for the common ancestor (its third block read: the position's
    // block, then the newest kept ones): nothing removed yet.
    const blockReads = () => proxy.stats().requests.eth_getBlockByNumber ?? 0;
    const reads = blockReads();
    const searching = cliIndex('indexer.json', head);
    await until(() => blockReads() >= reads + 3, searching);
    searching.child.kill('SIGKILL');
    expect((await searching.exited).signal).toBe('SIGKILL');
    expect(await stored()).toEqual({ position: top, trades: orphaned });

    // Killed just after the retraction committed: the store is the canonical chain up to the ancestor.
    const rolling = cliIndex('indexer.json', head);
    await until(async () => (await stored()).position < top, rolling);
    rolling.child.kill('SIGKILL');
    expect((await rolling.exited).signal).toBe('SIGKILL');
    const afterKill = await stored();
    expect(afterKill.position).toBeLessThan(top);
    expect([afterKill.position, afterKill.trades]).toEqual([afterKill.position, canonicalUpTo(afterKill.position)]);

    const last = await indexTo(head);
    const summary = JSON.parse(last.stdout) as { chains: { chain: string; toBlock: number }[] };
    expect(summary.chains.map((c) => [c.chain, c.toBlock])).toEqual([['devnet', head]]);
    expect((await stored()).trades).toEqual(canonicalUpTo(head));
    await t.settled();
    const newest = await chain.client.getBlock({ blockNumber: BigInt(head) });
    t.clock.set(Number(newest.timestamp) * 1000);
    await expectEveryRead(t, canonical);
  }, 300_000);
});

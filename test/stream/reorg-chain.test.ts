/**
 * A chain reorganisation end to end (docs/api.md, Live stream: Reorgs): a real anvil node with
 * the real Uniswap contracts (test/helpers/chain/scenario.ts), the chain indexer following it into
 * the live server, and a real ws client on a token: swaps in blocks that evm_revert then orphans
 * reach the client as trades, and once the indexer sees the new branch it gets `removed` naming
 * exactly those trades, `reset` reorg on its bars, and then the new branch's trade. On SQLite and,
 * with STORE=postgres, on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEther, parseUnits, type Address } from 'viem';
import { createLogger } from '../../src/logger.js';
import { parseIndexerConfig } from '../../src/indexer/evm/config.js';
import { startIndexer, type IndexerHandle } from '../../src/indexer/evm/run.js';
import { indexerMetrics } from '../../src/indexer/evm/prom.js';
import { swapV2 } from '../../src/devnet/dex.js';
import { buildScenario, type Scenario } from '../helpers/chain/scenario.js';
import { Client, startLive, type Live } from './support.js';

let s: Scenario;
let live: Live;
let handle: IndexerHandle;

beforeAll(async () => {
  s = await buildScenario({ chain: 'devnet' });
  live = await startLive({ env: { CHAIN: 'devnet' } });
  const config = parseIndexerConfig({ chains: [{ ...s.config, reorgDepth: 8, pollMs: 50 }] }, ['devnet']);
  handle = startIndexer({ config, services: live.services, log: createLogger('silent'), metrics: indexerMetrics(live.services.metrics.registry) });
}, 180_000);

afterAll(async () => {
  await handle?.stop();
  await live?.stop();
  await s?.stop();
});

async function caughtUp(): Promise<void> {
  const head = await s.chain.blockNumber();
  for (let waited = 0; waited < 60_000; waited += 25) {
    const st = handle.status()[0]!;
    if (st.state === 'stopped') throw new Error('the indexer stopped');
    if (st.indexed === head) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`the indexer did not reach block ${head}`);
}

describe('a reorg on a real chain, seen by a stream client', () => {
  it('sends the orphaned swaps, then removed naming exactly them and reset reorg, then the new branch', async () => {
    await caughtUp();
    const { dex, tokens, traders } = s.world;
    const alpha = tokens.alpha.toLowerCase();
    const c = await Client.open(`${live.wsBase}/v1/stream`);
    const trades = await c.request({ op: 'subscribe', channel: 'trades', token: alpha });
    const bars = await c.request({ op: 'subscribe', channel: 'bars', token: alpha, resolution: '1' });
    expect([trades.op, bars.op]).toEqual(['subscribed', 'subscribed']);
    await c.waitFor((m) => m.sub === bars.sub && m.op === 'bar');

    const snapshot = await s.chain.snapshot();
    const before = await s.chain.blockNumber();
    await swapV2(s.chain, dex, traders[0] as Address, [tokens.weth, tokens.alpha], parseEther('0.01'));
    await swapV2(s.chain, dex, traders[1] as Address, [tokens.alpha, tokens.weth], parseUnits('300', 18));
    await caughtUp();
    const sentTrades = () => c.of(trades.sub, 'trades').flatMap((m) => m.trades as { id: number; signature: string; index: number }[]);
    await c.waitFor(() => sentTrades().length === 2, 10_000);
    const orphaned = sentTrades()
      .map((t) => ({ id: t.id, signature: t.signature, index: t.index }))
      .sort((a, b) => a.id - b.id);

    // The node goes back to before them; the new branch holds another swap, one block longer.
    await s.chain.revert(snapshot);
    expect(await s.chain.blockNumber()).toBe(before);
    await swapV2(s.chain, dex, traders[2] as Address, [tokens.weth, tokens.alpha], parseEther('0.02'));
    await s.chain.mine(2);
    await caughtUp();
    const removed = await c.waitFor((m) => m.sub === trades.sub && m.op === 'removed', 10_000);
    expect(removed).toEqual({ op: 'removed', sub: trades.sub, trades: orphaned });
    await c.waitFor((m) => m.sub === bars.sub && m.op === 'reset', 10_000);
    await c.waitFor(() => sentTrades().length === 3, 10_000);

    // The orphaned blocks' trades (one message per indexer transaction), removed, the new branch's.
    const ops = c.of(trades.sub).map((m) => m.op);
    expect([ops.slice(0, -2).every((op) => op === 'trades'), ops.slice(-2)]).toEqual([true, ['removed', 'trades']]);
    const fresh = sentTrades().at(-1)!;
    expect(fresh.id).toBeGreaterThan(orphaned.at(-1)!.id);
    expect(c.of(bars.sub).filter((m) => m.op === 'reset')).toEqual([{ op: 'reset', sub: bars.sub, reason: 'reorg' }]);
    // What the store holds now is what the client was left with.
    const page = await live.http.get(`/v1/token/${alpha}/trades?limit=1000`);
    const stored = new Set((page.body.trades as { id: number }[]).map((t) => t.id));
    expect(orphaned.filter((t) => stored.has(t.id))).toEqual([]);
    expect(stored.has(fresh.id)).toBe(true);
    c.close();
  }, 180_000);
});

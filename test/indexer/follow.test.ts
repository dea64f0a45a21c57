/**
 * Head following (issue 29): once backfilled, the indexer follows the node's head, with new heads
 * pushed over WebSocket (`wsUrl`) or polled (`pollMs`); a block mined afterwards reaches a
 * /v1/stream trades subscriber as any ingest's trades, equal to the naive oracle's. One anvil for
 * the file; each case indexes it afresh into its own store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEther, parseUnits } from 'viem';
import { createLogger } from '../../src/logger.js';
import { parseIndexerConfig } from '../../src/indexer/evm/config.js';
import { startIndexer, type IndexerHandle } from '../../src/indexer/evm/run.js';
import { swapV2, swapV3 } from '../../src/devnet/dex.js';
import { buildScenario, type Scenario } from '../helpers/chain/scenario.js';
import { Oracle } from '../helpers/chain/oracle.js';
import { close } from '../helpers/chain/compare.js';
import { Client, startLive, type Live } from '../stream/support.js';

let s: Scenario;

beforeAll(async () => {
  s = await buildScenario({ chain: 'devnet' });
}, 120_000);

afterAll(async () => {
  await s?.stop();
});

async function waitFor(what: string, ok: () => boolean): Promise<void> {
  for (let i = 0; i < 600; i += 1) {
    if (ok()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Follows the chain with `mode`; a swap mined after the backfill reaches a trades subscriber. */
async function followCase(mode: 'ws' | 'poll'): Promise<void> {
  const live: Live = await startLive({ env: { CHAIN: 'devnet' } });
  let handle: IndexerHandle | null = null;
  let client: Client | null = null;
  try {
    const chainConfig = { ...s.config, wsUrl: mode === 'ws' ? s.anvil.wsUrl : null, pollMs: 200 };
    handle = startIndexer({ config: parseIndexerConfig({ chains: [chainConfig] }, ['devnet']), services: live.services, log: createLogger('silent') });
    const head = await s.chain.blockNumber();
    await waitFor('the backfill', () => {
      const st = handle?.status()[0];
      return st !== undefined && st.state === 'following' && st.indexed >= head;
    });
    await live.settled();
    const alpha = s.world.tokens.alpha.toLowerCase();
    const gamma = s.world.tokens.gamma.toLowerCase();
    client = await Client.open(`${live.wsBase}/v1/stream`);
    const subAlpha = await client.request({ op: 'subscribe', channel: 'trades', token: alpha });
    const subGamma = await client.request({ op: 'subscribe', channel: 'trades', token: gamma });
    expect([subAlpha.op, subGamma.op]).toEqual(['subscribed', 'subscribed']);

    const [w1, w2] = s.world.traders as [`0x${string}`, `0x${string}`];
    const v2 = await swapV2(s.chain, s.world.dex, w1, [s.world.tokens.weth, s.world.tokens.alpha], parseEther('0.05'));
    const v3 = await swapV3(s.chain, s.world.dex, w2, [s.world.tokens.usdc, s.world.tokens.gamma], [3000], parseUnits('250', 6));
    const newest = await s.chain.blockNumber();
    const trades = (sub: string): Record<string, unknown>[] =>
      client?.messages.filter((m) => m.op === 'trades' && m.sub === sub).flatMap((m) => m.trades as Record<string, unknown>[]) ?? [];
    await waitFor('the followed trades on the stream', () => trades(subAlpha.sub as string).length >= 1 && trades(subGamma.sub as string).length >= 1);

    const e = await new Oracle(s.anvil.rpcUrl).expect(s.config, newest);
    for (const [sub, hash] of [
      [subAlpha.sub as string, v2],
      [subGamma.sub as string, v3],
    ] as const) {
      const got = trades(sub);
      const want = e.trades.find((x) => x.signature === hash.toLowerCase());
      expect(got.map((g) => g.signature)).toEqual([hash.toLowerCase()]);
      const g = got[0] as Record<string, unknown>;
      expect({ index: g.index, blockTime: g.blockTime, side: g.side, wallet: g.wallet, market: g.market }).toEqual({
        index: want?.index,
        blockTime: want?.blockTime,
        side: want?.side,
        wallet: want?.wallet,
        market: want?.market,
      });
      for (const k of ['amount', 'quoteAmount', 'priceUsd', 'volumeUsd'] as const) expect([k, close(g[k], want?.[k] as number)]).toEqual([k, true]);
    }
  } finally {
    client?.ws.close();
    await handle?.stop();
    await live.stop();
  }
}

describe('head following', () => {
  it('with wsUrl: newHeads pushed, a mined block reaches a stream subscriber', async () => {
    await followCase('ws');
  }, 60_000);

  it('without wsUrl: the head polled every pollMs, a mined block reaches a stream subscriber', async () => {
    await followCase('poll');
  }, 60_000);
});

/**
 * The indexer on a chain that is not the default (docs/chains.md; docs/indexer.md): a deployment
 * of CHAINS=solana,devnet indexes a real anvil node under the name devnet, so every token and
 * market it writes is keyed `devnet:0x…` and none sits at the plain address (the default chain,
 * solana); a reorg retracts by those keys, taking a token and market first seen in orphaned blocks
 * out with their trades, and a tenant registered to `devnet:0x…` hears of it with the chain named.
 * One anvil for the file. Both engines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseUnits } from 'viem';
import { createLogger } from '../../src/logger.js';
import { parseIndexerConfig } from '../../src/indexer/evm/config.js';
import { startIndexer, type IndexerHandle } from '../../src/indexer/evm/run.js';
import { addV2Liquidity, approveRouters, erc20Abi, swapV2 } from '../../src/devnet/dex.js';
import { deployToken } from '../../src/devnet/deploy.js';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { buildScenario, type Scenario } from '../helpers/chain/scenario.js';

let s: Scenario;
beforeAll(async () => {
  s = await buildScenario({ chain: 'devnet' });
}, 120_000);
afterAll(async () => {
  await s?.stop();
});

async function waitFor(what: string, ok: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> {
  for (let waited = 0; waited < ms; waited += 25) {
    if (await ok()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

type Lines = { lines: Record<string, unknown>[] };

/** The devnet indexer of `t`, following the node; its log lines into `sink`. */
function follow(t: TestApp, sink: Lines): IndexerHandle {
  const config = parseIndexerConfig({ chains: [{ ...s.config, reorgDepth: 8, pollMs: 50 }] }, t.config.chains.list);
  const log = createLogger('info', { write: (line: string) => void sink.lines.push(JSON.parse(line) as Record<string, unknown>) });
  return startIndexer({ config, services: t.services, log });
}

async function caughtUp(handle: IndexerHandle): Promise<number> {
  const head = await s.chain.blockNumber();
  await waitFor(`the indexer at block ${head}`, () => {
    const st = handle.status()[0]!;
    if (st.state === 'stopped') throw new Error('the indexer stopped');
    return st.indexed === head;
  });
  return head;
}

const keys = async (t: TestApp, table: 'tokens' | 'markets') =>
  (await t.sql<{ address: string }>(`SELECT address FROM ${table} ORDER BY address`)).map((r) => r.address);
const tradesOf = async (t: TestApp, key: string) =>
  Number((await t.sql<{ n: number }>('SELECT count(*) AS n FROM trades JOIN tokens ON tokens.id = trades.token_id WHERE tokens.address = ?', key))[0]!.n);

describe('the indexer of a chain other than the default', () => {
  it('refuses a file whose chain is not one of CHAINS', () => {
    expect(() => parseIndexerConfig({ chains: [{ ...s.config, chain: 'base' }] }, ['solana', 'devnet'])).toThrow(
      'chains[0].chain must be one of CHAINS (solana, devnet)',
    );
  });

  it("writes under the chain's name, and a reorg takes out by those keys what orphaned blocks added", async () => {
    const t = makeTestApp({ env: { CHAINS: 'solana,devnet' } });
    const sink: Lines = { lines: [] };
    const handle = follow(t, sink);
    try {
      await caughtUp(handle);
      await t.settled();
      const alpha = s.world.tokens.alpha.toLowerCase();
      const tokens = await keys(t, 'tokens');
      expect(tokens.length).toBeGreaterThan(1);
      expect(tokens.filter((k) => !k.startsWith('devnet:0x'))).toEqual([]);
      expect(tokens).toContain(`devnet:${alpha}`);
      expect((await keys(t, 'markets')).filter((k) => !k.startsWith('devnet:0x'))).toEqual([]);
      expect(await tradesOf(t, `devnet:${alpha}`)).toBeGreaterThan(0);
      expect(await tradesOf(t, alpha)).toBe(0);
      // The plain address names the default chain (solana), where nothing was indexed.
      const plain = await t.http.get(`/v1/token/${alpha}/overview`);
      expect([plain.status, plain.body.error?.code]).toEqual([404, 'token_not_found']);

      // A token, its pool and a swap in blocks a reorg then orphans.
      const snapshot = await s.chain.snapshot();
      const { deployer, dex } = s.world;
      const orphan = await deployToken(s.chain, deployer, { kind: 'string', name: 'Orphan Token', symbol: 'ORPH', decimals: 18 });
      const key = `devnet:${orphan.toLowerCase()}`;
      const { secret } = t.makeKey();
      expect((await t.http.post('/v1/tokens/register').set('x-api-key', secret).send({ address: key })).status).toBe(201);
      await s.chain.send(deployer, orphan, erc20Abi, 'mint', [deployer, parseUnits('1000000', 18)]);
      await approveRouters(s.chain, dex, deployer, [orphan]);
      await addV2Liquidity(s.chain, dex, deployer, orphan, s.world.tokens.usdc, parseUnits('100000', 18), parseUnits('5000', 6));
      await swapV2(s.chain, dex, deployer, [s.world.tokens.usdc, orphan], parseUnits('100', 6));
      const top = await caughtUp(handle);
      await t.settled();
      expect(await keys(t, 'tokens')).toContain(key);
      expect(await tradesOf(t, key)).toBe(1);
      const markets = (await keys(t, 'markets')).length;

      await s.chain.revert(snapshot);
      await swapV2(s.chain, dex, s.world.traders[0]!, [s.world.tokens.usdc, s.world.tokens.weth], parseUnits('50', 6));
      await s.chain.mine(1);
      expect(await s.chain.blockNumber()).toBeLessThan(top);
      await caughtUp(handle);
      await t.settled();
      expect(await keys(t, 'tokens')).not.toContain(key);
      expect((await keys(t, 'markets')).length).toBe(markets - 1);
      expect(await tradesOf(t, key)).toBe(0);
      expect(sink.lines.find((l) => String(l.msg).startsWith('reorg on devnet'))).toMatchObject({ chain: 'devnet', markets: 1, tokens: 1, trades: 1 });

      const events = (await t.http.get('/v1/events').set('x-api-key', secret)).body.events as { type: string; token: string; chain: string }[];
      expect(events.map((e) => [e.type, e.token, e.chain])).toEqual([
        ['trades', orphan.toLowerCase(), 'devnet'],
        ['trades_removed', orphan.toLowerCase(), 'devnet'],
      ]);
    } finally {
      await handle.stop();
      await t.close();
    }
  }, 240_000);
});

/**
 * The core's own end-to-end check of a backfill (docs/indexer.md): the scenario chain of
 * test/helpers/chain/scenario.ts indexed by startIndexer up to its last block, then the stored
 * trades, markets, tokens and holders read straight from the store and compared with the naive
 * oracle's recomputation from the node's logs and eth_calls; a second run resumes from the
 * stored position and adds nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { buildScenario, type Scenario } from '../helpers/chain/scenario.js';
import { Oracle, type Expected } from '../helpers/chain/oracle.js';
import { parseIndexerConfig } from '../../src/indexer/evm/config.js';
import { startIndexer } from '../../src/indexer/evm/run.js';
import { createLogger } from '../../src/logger.js';

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b));

describe('startIndexer on the scenario chain', () => {
  let s: Scenario;
  let t: TestApp;
  let expected: Expected;
  beforeAll(async () => {
    s = await buildScenario({ chain: 'devnet' });
    expected = await new Oracle(s.anvil.rpcUrl).expect(s.config, s.endBlock);
    t = makeTestApp({ env: { CHAIN: 'devnet' } });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await s?.stop();
  });

  it('stores every trade, market, token and holder the oracle computes, and resumes adding nothing', async () => {
    const config = parseIndexerConfig({ chains: [s.config] }, ['devnet']);
    const handle = startIndexer({ config, services: t.services, log: createLogger('silent'), until: s.endBlock });
    const summary = await handle.done;
    // The scenario is what makes this test mean something: many trades, several markets, holders.
    expect([expected.trades.length > 20, expected.markets.length >= 5, expected.holders.length > 10]).toEqual([true, true, true]);
    expect(summary.chains[0]).toMatchObject({
      chain: 'devnet',
      toBlock: s.endBlock,
      trades: expected.trades.length,
      tokens: expected.tokens.length,
      markets: expected.markets.length,
      reorgs: 0,
    });

    const trades = await t.sql<{
      signature: string;
      idx: number;
      block_time: number;
      wallet: string;
      is_buy: number;
      price_usd: number;
      amount: number;
      quote_amount: number;
      volume_usd: number;
      market: string;
      address: string;
    }>(
      'SELECT tr.signature, tr.idx, tr.block_time, tr.wallet, tr.is_buy, tr.price_usd, tr.amount, tr.quote_amount, tr.volume_usd, tr.market, tk.address FROM trades tr JOIN tokens tk ON tk.id = tr.token_id ORDER BY tr.id',
    );
    expect(trades.map((r) => `${r.signature}:${r.idx}`)).toEqual(expected.trades.map((e) => `${e.signature}:${e.index}`));
    trades.forEach((r, i) => {
      const e = expected.trades[i]!;
      expect({ token: r.address, market: r.market, blockTime: Number(r.block_time), wallet: r.wallet, side: Number(r.is_buy) === 1 ? 'buy' : 'sell' }).toEqual({
        token: e.token,
        market: e.market,
        blockTime: e.blockTime,
        wallet: e.wallet,
        side: e.side,
      });
      for (const [got, want] of [
        [r.amount, e.amount],
        [r.quote_amount, e.quoteAmount],
        [r.price_usd, e.priceUsd],
        [r.volume_usd, e.volumeUsd],
      ] as const)
        expect(close(Number(got), want), `${e.signature}:${e.index} ${got} vs ${want}`).toBe(true);
    });

    const tokens = await t.sql<{
      address: string;
      symbol: string;
      name: string;
      decimals: number;
      total_supply: number;
      circulating_supply: number;
      created_at: number;
    }>('SELECT address, symbol, name, decimals, total_supply, circulating_supply, created_at FROM tokens ORDER BY address');
    const wantTokens = [...expected.tokens].sort((a, b) => (a.address < b.address ? -1 : 1));
    expect(tokens.map((r) => ({ address: r.address, symbol: r.symbol, name: r.name, decimals: Number(r.decimals), createdAt: Number(r.created_at) }))).toEqual(
      wantTokens.map((e) => ({ address: e.address, symbol: e.symbol, name: e.name, decimals: e.decimals, createdAt: e.createdAt })),
    );
    tokens.forEach((r, i) => {
      expect(close(Number(r.total_supply), wantTokens[i]!.totalSupply), `${r.address} supply`).toBe(true);
      expect(close(Number(r.circulating_supply), wantTokens[i]!.circulatingSupply), `${r.address} circulating`).toBe(true);
    });

    const markets = await t.sql<{
      address: string;
      quote_address: string;
      quote_symbol: string;
      dex: string;
      created_at: number;
      liquidity_usd: number;
      token: string;
    }>(
      'SELECT m.address, m.quote_address, m.quote_symbol, m.dex, m.created_at, m.liquidity_usd, tk.address AS token FROM markets m JOIN tokens tk ON tk.id = m.token_id ORDER BY m.address',
    );
    const wantMarkets = [...expected.markets].sort((a, b) => (a.address < b.address ? -1 : 1));
    expect(
      markets.map((m) => ({
        address: m.address,
        token: m.token,
        quoteAddress: m.quote_address,
        quoteSymbol: m.quote_symbol,
        dex: m.dex,
        createdAt: Number(m.created_at),
      })),
    ).toEqual(
      wantMarkets.map((m) => ({
        address: m.address,
        token: m.token,
        quoteAddress: m.quoteAddress,
        quoteSymbol: m.quoteSymbol,
        dex: m.dex,
        createdAt: m.createdAt,
      })),
    );
    markets.forEach((m, i) => {
      const want = wantMarkets[i]!.liquidityUsd;
      expect(close(Number(m.liquidity_usd), want ?? 0), `${m.address} liquidity ${m.liquidity_usd} vs ${want}`).toBe(true);
    });

    const holders = await t.sql<{ token: string; owner: string; amount: number; updated_at: number }>(
      'SELECT tk.address AS token, h.owner, h.amount, h.updated_at FROM holders h JOIN tokens tk ON tk.id = h.token_id ORDER BY tk.address, h.owner',
    );
    const wantHolders = [...expected.holders].sort((a, b) => (a.token < b.token ? -1 : a.token > b.token ? 1 : a.owner < b.owner ? -1 : 1));
    expect(holders.map((h) => `${h.token}/${h.owner}@${Number(h.updated_at)}`)).toEqual(wantHolders.map((h) => `${h.token}/${h.owner}@${h.updatedAt}`));
    holders.forEach((h, i) => expect(close(Number(h.amount), wantHolders[i]!.amount)).toBe(true));

    // A second run starts from the stored position: nothing to add, nothing doubled.
    const again = await startIndexer({ config, services: t.services, log: createLogger('silent'), until: s.endBlock }).done;
    expect(again.chains[0]).toMatchObject({ trades: 0, markets: 0, tokens: 0 });
    expect((await t.sql<{ n: number }>('SELECT count(*) AS n FROM trades'))[0]!.n).toBe(expected.trades.length);
  }, 120_000);
});

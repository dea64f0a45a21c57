/**
 * startAnvil(): the binary of the npm package @foundry-rs/anvil on a loopback port the kernel
 * picks, mining a block per transaction, on an interval, or only when told; stop() ends it.
 */
import { describe, expect, it } from 'vitest';
import { connectDevChain } from '../../../src/devnet/chain.js';
import { startAnvil } from './scenario.js';

describe('startAnvil', () => {
  it('mines only when told with noMining, and serves HTTP and WebSocket on one free port', async () => {
    const anvil = await startAnvil({ noMining: true, accounts: 3 });
    try {
      expect(anvil.rpcUrl).toBe(`http://127.0.0.1:${anvil.port}`);
      expect(anvil.wsUrl).toBe(`ws://127.0.0.1:${anvil.port}`);
      const chain = await connectDevChain(anvil.rpcUrl);
      expect(chain.accounts.length).toBe(3);
      const hash = await chain.client.request({
        method: 'eth_sendTransaction' as 'eth_chainId',
        params: [{ from: chain.accounts[0], to: chain.accounts[1], value: '0x1' }] as never,
      });
      expect(await chain.blockNumber()).toBe(0);
      await chain.mine(3);
      expect(await chain.blockNumber()).toBe(3);
      expect(Number((await chain.receipt(hash as unknown as `0x${string}`)).blockNumber)).toBe(1);
    } finally {
      await anvil.stop();
    }
  });

  it('mines on an interval with blockTime, and stops for good', async () => {
    const anvil = await startAnvil({ blockTime: 1, accounts: 1 });
    const chain = await connectDevChain(anvil.rpcUrl);
    const first = await chain.blockNumber();
    let now = first;
    for (let i = 0; i < 100 && now <= first; i += 1) {
      await new Promise((r) => setTimeout(r, 100));
      now = await chain.blockNumber();
    }
    expect(now).toBeGreaterThan(first);
    await anvil.stop();
    await expect(fetch(anvil.rpcUrl, { method: 'POST', body: '{}' })).rejects.toThrow();
  });
});

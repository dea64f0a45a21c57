/**
 * The live stream in a deployment of several chains (docs/chains.md, The stream and chains): one
 * 0x address is a token on Base and another on Ethereum; subscriptions take `chain:address`, are
 * keyed by the store key (so the two never cross), and frames name a token by its plain address
 * and its chain.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client, startLive, written, type Live } from '../stream/support.js';
import { CHAINS_ENV, HOUR, POOL, WALLET, WETH, ingestTwoChains, liveTrade } from './support.js';

let live: Live;
let c: Client;
beforeEach(async () => {
  live = await startLive({ env: CHAINS_ENV });
  ingestTwoChains(live);
  await written(live);
  c = await Client.open(`${live.wsBase}/v1/stream`);
});
afterEach(async () => {
  c.close();
  await live.stop();
});

describe('subscriptions by chain:address', () => {
  it('answers subscribed with the plain address and the chain, for each channel', async () => {
    const bars = await c.request({ op: 'subscribe', channel: 'bars', token: `base:${WETH}`, resolution: '60' });
    expect(bars).toEqual({ op: 'subscribed', id: bars.id, sub: bars.sub, channel: 'bars', token: WETH, chain: 'base', resolution: '60' });
    const trades = await c.request({ op: 'subscribe', channel: 'trades', token: `ethereum:${WETH}` });
    expect(trades).toEqual({ op: 'subscribed', id: trades.id, sub: trades.sub, channel: 'trades', token: WETH, chain: 'ethereum' });
    const prices = await c.request({ op: 'subscribe', channel: 'prices', tokens: [`base:${WETH}`, `ethereum:${WETH}`, `BASE:${WETH}`] });
    expect(prices).toEqual({
      op: 'subscribed',
      id: prices.id,
      sub: prices.sub,
      channel: 'prices',
      tokens: [WETH, WETH, WETH],
      chains: ['base', 'ethereum', 'base'],
    });
    const overview = await c.request({ op: 'subscribe', channel: 'overview', token: `ethereum:${WETH}` });
    expect([overview.token, overview.chain]).toEqual([WETH, 'ethereum']);
  });

  it('refuses a chain outside CHAINS, or an address the chain does not hold, as an unknown token', async () => {
    for (const token of [`polygon:${WETH}`, WETH, `solana:${WETH}`]) {
      const err = await c.request({ op: 'subscribe', channel: 'trades', token });
      expect(err).toEqual({ op: 'error', id: err.id, error: { code: 'token_not_found', message: `unknown token ${token}`, param: 'token' } });
    }
  });
});

describe('one chain never hears the other', () => {
  it('sends the first bar and price of each chain own token', async () => {
    const base = await c.request({ op: 'subscribe', channel: 'bars', token: `base:${WETH}`, resolution: '60' });
    const eth = await c.request({ op: 'subscribe', channel: 'bars', token: `ethereum:${WETH}`, resolution: '60' });
    expect((await c.waitFor((m) => m.sub === base.sub && m.op === 'bar')).bar).toEqual({ t: HOUR, o: 3000, h: 3100, l: 3000, c: 3100, v: 61 });
    expect((await c.waitFor((m) => m.sub === eth.sub && m.op === 'bar')).bar).toEqual({ t: HOUR, o: 3500, h: 3500, l: 3500, c: 3500, v: 70 });
    const prices = await c.request({ op: 'subscribe', channel: 'prices', tokens: [`base:${WETH}`, `ethereum:${WETH}`] });
    const price = (chain: string) => c.waitFor((m) => m.sub === prices.sub && m.op === 'price' && m.chain === chain);
    const p = await price('base');
    expect(p).toEqual({
      op: 'price',
      sub: prices.sub,
      token: WETH,
      chain: 'base',
      priceUsd: 3100,
      priceChangePct24h: p.priceChangePct24h,
      lastTradeAt: HOUR + 200,
    });
    expect([(await price('ethereum')).priceUsd, (await price('ethereum')).lastTradeAt]).toEqual([3500, HOUR + 150]);
  });

  it('sends a Base trade to Base subscribers only: the Ethereum subscription hears only its own, later trade', async () => {
    const base = await c.request({ op: 'subscribe', channel: 'trades', token: `base:${WETH}` });
    const eth = await c.request({ op: 'subscribe', channel: 'trades', token: `ethereum:${WETH}` });
    const baseBars = await c.request({ op: 'subscribe', channel: 'bars', token: `base:${WETH}`, resolution: '60' });
    const ethBars = await c.request({ op: 'subscribe', channel: 'bars', token: `ethereum:${WETH}`, resolution: '60' });
    await c.waitFor((m) => m.sub === ethBars.sub && m.op === 'bar');

    await live.ingest([liveTrade('base', HOUR + 300, 3200, 32)]);
    const got = await c.waitFor((m) => m.sub === base.sub && m.op === 'trades');
    expect(got.trades.map((x: Record<string, unknown>) => [x.priceUsd, x.market, x.chain, x.wallet])).toEqual([[3200, POOL, 'base', WALLET]]);
    await c.waitFor((m) => m.sub === baseBars.sub && m.op === 'bar' && m.bar.c === 3200);

    // Ethereum's trade comes after Base's in the same order of changes: had Ethereum's subscription
    // heard Base's trade, it would be there before this one.
    await live.ingest([liveTrade('ethereum', HOUR + 400, 3600, 36)]);
    await c.waitFor((m) => m.sub === eth.sub && m.op === 'trades');
    expect(c.of(eth.sub, 'trades').flatMap((m) => m.trades.map((x: Record<string, unknown>) => [x.priceUsd, x.chain]))).toEqual([[3600, 'ethereum']]);
    await c.waitFor((m) => m.sub === ethBars.sub && m.op === 'bar' && m.bar.c === 3600);
    expect(c.of(ethBars.sub, 'bar').map((m) => m.bar.c)).toEqual([3500, 3600]);
    expect(c.of(baseBars.sub, 'bar').map((m) => m.bar.c)).toEqual([3100, 3200]);
    expect(c.of(base.sub, 'trades').flatMap((m) => m.trades.map((x: Record<string, unknown>) => x.priceUsd))).toEqual([3200]);
  });

  it('replays sinceId with each chain own trades, plain market and chain', async () => {
    const eth = await c.request({ op: 'subscribe', channel: 'trades', token: `ethereum:${WETH}`, sinceId: 0 });
    const replay = await c.waitFor((m) => m.sub === eth.sub && m.op === 'trades');
    expect(replay.trades.map((x: Record<string, unknown>) => [x.priceUsd, x.market, x.chain])).toEqual([[3500, POOL, 'ethereum']]);
    const base = await c.request({ op: 'subscribe', channel: 'trades', token: `base:${WETH}`, sinceId: 0 });
    const baseReplay = await c.waitFor((m) => m.sub === base.sub && m.op === 'trades');
    expect(baseReplay.trades.map((x: Record<string, unknown>) => [x.priceUsd, x.chain])).toEqual([
      [3000, 'base'],
      [3100, 'base'],
    ]);
  });
});

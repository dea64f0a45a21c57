/**
 * What a retraction tells the read models that keep figures in memory (docs/indexer.md, Reorgs:
 * what a retraction removes): boards built by adding trades as they arrive (top traders, the
 * window boards of discovery), the history series and the cached answers must all lose a removed
 * trade that is neither the newest nor the last of its token, read before and after.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aMarket, aToken, aTrade, anAddress } from '../helpers/builders.js';

const NOW = 1_700_000_000;

describe('read models after a retraction of a trade in the middle of a token', () => {
  let t: TestApp;
  afterEach(async () => t?.close());

  it('top traders, overview windows, trending, history and trades pages drop it', async () => {
    t = makeTestApp();
    const token = aToken({ symbol: 'MID' });
    const market = aMarket(token.address);
    const [w1, w2, w3] = [anAddress('wa'), anAddress('wb'), anAddress('wc')];
    const trades = [
      aTrade(token.address, { market: market.address, wallet: w1, blockTime: NOW - 300, volumeUsd: 10, priceUsd: 1 }),
      aTrade(token.address, { market: market.address, wallet: w2, blockTime: NOW - 200, volumeUsd: 500, priceUsd: 9 }),
      aTrade(token.address, { market: market.address, wallet: w3, blockTime: NOW - 100, volumeUsd: 30, priceUsd: 2 }),
    ];
    await t.ingest([token, market, ...trades]);
    await t.settled();
    const read = async () => ({
      top: (await t.http.get(`/v1/token/${token.address}/top-traders?window=1h`)).body as { traders: { wallet: string; volumeUsd: number }[] },
      overview: (await t.http.get(`/v1/token/${token.address}/overview`)).body as { windows: Record<string, { volumeUsd: number; trades: number }> },
      trending: (await t.http.get('/v1/market/trending?window=1h')).body as { tokens: { volumeUsd: number }[] },
      history: (await t.http.get(`/udf/history?symbol=${token.address}&resolution=1&from=${NOW - 3600}&to=${NOW}`)).body as { h: number[]; v: number[] },
      trades: (await t.http.get(`/v1/token/${token.address}/trades`)).body as { trades: { wallet: string }[] },
    });
    const before = await read();
    expect(before.top.traders.map((x) => x.wallet)).toEqual([w2, w3, w1]);
    expect(before.overview.windows['1h']!.trades).toBe(3);
    expect(before.trending.tokens[0]!.volumeUsd).toBe(540);
    expect(Math.max(...before.history.h)).toBe(9);

    const result = await t.services.ingest.retract({ trades: [{ signature: trades[1]!.signature, index: 0 }], markets: [], tokens: [], records: [] });
    expect(result).toEqual({ removed: 1, tokens: [token.address] });

    const after = await read();
    expect(after.top.traders.map((x) => [x.wallet, x.volumeUsd])).toEqual([
      [w3, 30],
      [w1, 10],
    ]);
    expect(after.overview.windows['1h']!.trades).toBe(2);
    expect(after.overview.windows['1h']!.volumeUsd).toBe(40);
    expect(after.trending.tokens[0]!.volumeUsd).toBe(40);
    expect(Math.max(...after.history.h)).toBe(2);
    expect(after.trades.trades.map((x) => x.wallet)).toEqual([w3, w1]);
  });
});

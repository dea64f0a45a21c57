/**
 * Overview, top traders, holders, markets, trending and search answer prepared JSON from the response cache
 * (src/read/token-views.ts, discovery-views.ts): repeated reads between two changes share one
 * answer (same bytes, same ETag, no new cache entry), and the next read after an ingest of the
 * token shows it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aHolder, aMarket, aToken, aTrade, anAddress } from '../helpers/builders.js';

let t: TestApp;
afterEach(() => t?.close());

const NOW = 1_700_000_000;

describe('prepared answers of the token lists and trending', () => {
  it('are made once between changes and made again after an ingest of the token', async () => {
    t = makeTestApp();
    const tok = aToken();
    const m = aMarket(tok.address);
    const w1 = anAddress('wal');
    const w2 = anAddress('wal');
    await t.ingest([tok, m, aTrade(tok.address, { market: m.address, blockTime: NOW - 5, volumeUsd: 7, wallet: w1 }), aHolder(tok.address)]);
    const paths = ['overview', 'top-traders', 'holders'].map((p) => `/v1/token/${tok.address}/${p}`);
    paths.push('/v1/market/trending', `/v1/token/${tok.address}/markets`, `/v1/search?q=${encodeURIComponent(tok.symbol)}`);
    const first = [];
    for (const p of paths) first.push(await t.http.get(p));
    const entries = t.app.deps.cache.size();
    for (let i = 0; i < paths.length; i++) {
      const again = await t.http.get(paths[i]!);
      expect(again.status).toBe(200);
      expect(again.text, paths[i]).toBe(first[i]!.text);
      expect(again.headers.etag, paths[i]).toBe(first[i]!.headers.etag);
    }
    // Served from what the first reads stored: nothing new was cached.
    expect(t.app.deps.cache.size()).toBe(entries);
    expect(first[1]!.body.traders.map((x: { wallet: string; volumeUsd: number }) => [x.wallet, x.volumeUsd])).toEqual([[w1, 7]]);
    expect(first[3]!.body.tokens[0].volumeUsd).toBe(7);
    expect(first[5]!.body.results.map((x: { address: string; volume24hUsd: number }) => [x.address, x.volume24hUsd])).toEqual([[tok.address, 7]]);
    expect(first[4]!.body.markets.map((x: { address: string; volume24hUsd: number; trades24h: number }) => [x.address, x.volume24hUsd, x.trades24h])).toEqual([
      [m.address, 7, 1],
    ]);

    await t.ingest([aTrade(tok.address, { market: m.address, blockTime: NOW - 1, volumeUsd: 20, priceUsd: 3, wallet: w2 })]);
    const after = [];
    for (const p of paths) after.push(await t.http.get(p));
    expect(after[0]!.body.windows['5m']).toMatchObject({ trades: 2, volumeUsd: 27 });
    expect(after[0]!.body.priceUsd).toBe(3);
    expect(after[1]!.body.traders.map((x: { wallet: string; volumeUsd: number }) => [x.wallet, x.volumeUsd])).toEqual([
      [w2, 20],
      [w1, 7],
    ]);
    expect(after[2]!.body.holders[0].valueUsd).toBe(after[2]!.body.holders[0].amount * 3);
    expect(after[3]!.body.tokens[0].volumeUsd).toBe(27);
    expect(
      after[4]!.body.markets.map((x: { address: string; volume24hUsd: number; trades24h: number; priceUsd: number }) => [
        x.address,
        x.volume24hUsd,
        x.trades24h,
        x.priceUsd,
      ]),
    ).toEqual([[m.address, 27, 2, 3]]);
    expect(after[5]!.body.results.map((x: { address: string; volume24hUsd: number; priceUsd: number }) => [x.address, x.volume24hUsd, x.priceUsd])).toEqual([
      [tok.address, 27, 3],
    ]);
    for (let i = 0; i < paths.length; i++) expect(after[i]!.headers.etag, paths[i]).not.toBe(first[i]!.headers.etag);
  });
});

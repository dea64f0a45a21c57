/**
 * Whole answers cached as serialised JSON (history, candles, trades pages): never older than the
 * last ingest of their token, and still answering conditional requests.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from './helpers/make-test-app.js';
import { aMarket, aToken, aTrade, withMarket } from './helpers/builders.js';

let t: TestApp;
afterEach(() => t?.close());

const T0 = 1_699_999_000;

function setup() {
  t = makeTestApp();
  const a = aToken({ symbol: 'AAA' });
  const b = aToken({ symbol: 'BBB' });
  t.ingest([...withMarket(a), ...withMarket(b), aTrade(a.address, { blockTime: T0, priceUsd: 1 }), aTrade(b.address, { blockTime: T0, priceUsd: 1 })]);
  return { a, b };
}

const history = (symbol: string) => t.http.get('/udf/history').query({ symbol, resolution: '1', to: T0 + 3600, countback: 10 });

describe('cached answers', () => {
  it('show a trade ingested right after they were cached (history, candles, trades)', async () => {
    const { a } = setup();
    const h1 = await history(a.address);
    const c1 = await t.http.get(`/v1/token/${a.address}/candles`).query({ resolution: '1', to: T0 + 3600, countback: 10 });
    const p1 = await t.http.get(`/v1/token/${a.address}/trades`);
    expect(h1.body.c).toEqual([1]);
    expect(c1.body.candles).toHaveLength(1);
    expect(p1.body.trades).toHaveLength(1);

    t.ingest([aTrade(a.address, { blockTime: T0 + 120, priceUsd: 2 })]);

    expect((await history(a.address)).body.c).toEqual([1, 2]);
    const c2 = await t.http.get(`/v1/token/${a.address}/candles`).query({ resolution: '1', to: T0 + 3600, countback: 10 });
    expect(c2.body.candles.map((c: { c: number }) => c.c)).toEqual([1, 2]);
    expect((await t.http.get(`/v1/token/${a.address}/trades`)).body.trades.map((x: { priceUsd: number }) => x.priceUsd)).toEqual([2, 1]);
  });

  it("are not dropped by another token's ingest, and serve the same bytes and ETag again", async () => {
    const { a, b } = setup();
    const first = await history(a.address);
    // a write behind the store's back: only a cache would hide it
    await t.sql('UPDATE candles SET h = 99');
    t.ingest([aTrade(b.address, { blockTime: T0 + 60 })]);
    const again = await history(a.address);
    expect(again.text).toBe(first.text);
    expect(again.headers.etag).toBe(first.headers.etag);
    // A trade in a later bucket reads again only its own bar; the older bar stays as kept.
    t.ingest([aTrade(a.address, { blockTime: T0 + 60, priceUsd: 3 })]);
    expect((await history(a.address)).body.h).toEqual([1, 3]);
    // A backfilled trade reads again from its bucket on.
    t.ingest([aTrade(a.address, { blockTime: T0 + 1, priceUsd: 2 })]);
    expect((await history(a.address)).body.h).toEqual([99, 3]);
  });

  it('answer If-None-Match with 304', async () => {
    const { a } = setup();
    const first = await history(a.address);
    expect(first.headers.etag).toMatch(/^"[A-Za-z0-9_-]{27}(-[a-z]+)?"$/);
    const again = await history(a.address).set('If-None-Match', first.headers.etag!);
    expect(again.status).toBe(304);
    expect(again.headers['ratelimit-limit']).toBeTruthy();
  });

  it("show a market's new dex on another token's trades at once, and a moved market off its old token", async () => {
    t = makeTestApp();
    const [a, b] = [aToken(), aToken()];
    const pool = aMarket(a.address, { dex: 'raydium' });
    // b trades in a's pool (b is its quote side): b's trades show the pool's dex
    t.ingest([a, b, pool, aTrade(b.address, { blockTime: T0, market: pool.address })]);
    const dexOf = async () => (await t.http.get(`/v1/token/${b.address}/trades`)).body.trades[0].dex;
    expect(await dexOf()).toBe('raydium');
    t.ingest([{ ...pool, dex: 'orca' }]);
    expect(await dexOf()).toBe('orca');

    const overview = async (address: string) => (await t.http.get(`/v1/token/${address}/overview`)).body.markets;
    expect(await overview(a.address)).toBe(1);
    t.ingest([{ ...pool, token: b.address, dex: 'orca' }]);
    expect(await overview(a.address)).toBe(0);
    expect(await overview(b.address)).toBe(1);
  });
});

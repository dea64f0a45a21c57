import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aHolder, aMarket, aToken, aTrade, withMarket } from '../helpers/builders.js';
import type { Store } from '../../src/store/sqlite/db.js';
import type { PgStore } from '../../src/store/pg/pg-store.js';
import { readTokenId } from './naive.js';

let t: TestApp;
afterEach(() => t?.close());

const NOW = 1_700_000_000;

/**
 * Renames tokens straight in the store's table (the token `id`, or every token), as a session
 * outside the app would: nobody announces the write, so only a read of the store shows it.
 */
async function renameUnannounced(store: Store | PgStore, symbol: string, id?: number): Promise<void> {
  if (store.kind === 'sqlite') {
    if (id === undefined) store.db.prepare('UPDATE tokens SET symbol = ?').run(symbol);
    else store.db.prepare('UPDATE tokens SET symbol = ? WHERE id = ?').run(symbol, id);
  } else if (id === undefined) await store.pool.query('UPDATE tokens SET symbol = $1', [symbol]);
  else await store.pool.query('UPDATE tokens SET symbol = $1 WHERE id = $2', [symbol, id]);
}

describe('response cache', () => {
  it('shows an ingest on the very next read, in the same second', async () => {
    t = makeTestApp();
    const tok = aToken();
    const m = aMarket(tok.address);
    t.ingest([tok, m, aTrade(tok.address, { market: m.address, blockTime: NOW - 5, volumeUsd: 1 })]);
    const paths = ['overview', 'top-traders', 'markets', 'holders'].map((p) => `/v1/token/${tok.address}/${p}`);
    paths.push('/v1/market/trending', '/v1/search?q=test', `/v1/prices?addresses=${tok.address}`);
    const before = await Promise.all(paths.map((p) => t.http.get(p)));
    t.ingest([aTrade(tok.address, { market: m.address, blockTime: NOW - 1, volumeUsd: 2, priceUsd: 5 }), aHolder(tok.address)]);
    const after = await Promise.all(paths.map((p) => t.http.get(p)));
    expect(after[0]!.body.windows['5m']).toMatchObject({ trades: 2, volumeUsd: 3 });
    expect(after[0]!.body.priceUsd).toBe(5);
    expect(after[1]!.body.traders).toHaveLength(2);
    expect(after[2]!.body.markets[0]).toMatchObject({ priceUsd: 5, volume24hUsd: 3, trades24h: 2 });
    expect(after[3]!.body.totalHolders).toBe(1);
    expect(after[4]!.body.tokens[0].volumeUsd).toBe(3);
    expect(after[5]!.body.results[0].volume24hUsd).toBe(3);
    expect(after[6]!.body.prices[tok.address].priceUsd).toBe(5);
    for (let i = 0; i < paths.length; i++) expect(after[i]!.body, paths[i]).not.toEqual(before[i]!.body);
  });

  it('serves a token answer from the cache until that token changes, and a discovery answer until any token changes', async () => {
    t = makeTestApp();
    const [a, b] = [aToken({ symbol: 'AAA' }), aToken({ symbol: 'BBB' })];
    await t.ingest([...withMarket(a), ...withMarket(b), aTrade(a.address, { blockTime: NOW - 5 }), aTrade(b.address, { blockTime: NOW - 5 })]);
    const [idA, idB] = [await readTokenId(t.store, a.address), await readTokenId(t.store, b.address)];
    const overview = async () => (await t.http.get(`/v1/token/${a.address}/overview`)).body.symbol;
    // `new` is a discovery answer held in the response cache (trending reads the window boards,
    // which follow the ingest change log instead: see discovery-property.test.ts)
    const trending = async () => (await t.http.get('/v1/market/new')).body.tokens.map((x: { symbol: string }) => x.symbol).sort();
    expect(await overview()).toBe('AAA');
    expect(await trending()).toEqual(['AAA', 'BBB']);
    // a write that nobody announces is invisible: the answers come from the cache
    await renameUnannounced(t.store, 'NEW', idA);
    expect(await overview()).toBe('AAA');
    expect(await trending()).toEqual(['AAA', 'BBB']);
    // another token's change drops discovery answers but not this token's
    t.store.notifyChange({ tokens: new Set([idB]) });
    expect(await overview()).toBe('AAA');
    expect(await trending()).toEqual(['BBB', 'NEW']);
    t.store.notifyChange({ tokens: new Set([idA]) });
    expect(await overview()).toBe('NEW');
  });

  it('can be turned off with CACHE=off, and then reads the store every time', async () => {
    t = makeTestApp({ env: { CACHE: 'off' } });
    const tok = aToken({ symbol: 'OLD' });
    await t.ingest([tok]);
    expect((await t.http.get(`/v1/token/${tok.address}/overview`)).body.symbol).toBe('OLD');
    await renameUnannounced(t.store, 'NEW');
    expect((await t.http.get(`/v1/token/${tok.address}/overview`)).body.symbol).toBe('NEW');
  });
});

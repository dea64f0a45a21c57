/**
 * The /v1 lists in a deployment of several chains (docs/chains.md): /v1/market/* and /v1/search
 * cover every chain, each token with its chain; `chain=` keeps one chain (400 for a chain the
 * deployment does not serve); a plain 0x address found by search is that address on every chain.
 * A list cached for one chain is never served for another.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { chainWorld, NOW, X, type World } from './v1-world.js';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aMarket, aToken, aTrade, anAddress } from '../helpers/builders.js';

let w: World | undefined;
let one: TestApp | undefined;
afterEach(async () => {
  await w?.t.close();
  await one?.close();
  w = one = undefined;
});

type Item = { rank?: number; address: string; chain?: string; symbol: string };
const named = (items: Item[]) => items.map((x) => `${x.chain}:${x.symbol}`);

describe('/v1/market lists on several chains', () => {
  it('ranks every chain together, each token with its chain after its plain address', async () => {
    w = await chainWorld();
    const res = await w.t.http.get('/v1/market/trending');
    expect(res.status).toBe(200);
    expect(named(res.body.tokens)).toEqual(['ethereum:ETK', 'base:BTK', 'solana:STK']);
    expect(res.body.tokens[0]).toEqual({
      rank: 1,
      address: X,
      chain: 'ethereum',
      symbol: 'ETK',
      name: 'Ether Token',
      priceUsd: 4,
      priceChangePct: null,
      volumeUsd: 105,
      trades: 3,
      liquidityUsd: 900,
      marketCapUsd: 4000,
      createdAt: NOW - 4000,
    });
    expect(Object.keys(res.body.tokens[2])).toEqual([
      'rank',
      'address',
      'chain',
      'symbol',
      'name',
      'priceUsd',
      'priceChangePct',
      'volumeUsd',
      'trades',
      'liquidityUsd',
      'marketCapUsd',
      'createdAt',
    ]);
    const fresh = await w.t.http.get('/v1/market/new');
    expect(named(fresh.body.tokens)).toEqual(['solana:STK', 'ethereum:ETK', 'base:BTK']);
  });

  it('keeps one chain with chain=, base first and then ethereum from their own entries, and ranks from 1 in each', async () => {
    w = await chainWorld();
    const { t } = w;
    for (const path of ['trending', 'gainers', 'losers', 'new']) {
      await t.http.get(`/v1/market/${path}?chain=base`);
    }
    const base = await t.http.get('/v1/market/trending?chain=base');
    expect(base.body.tokens.map((x: Item) => [x.rank, x.chain, x.symbol])).toEqual([[1, 'base', 'BTK']]);
    const eth = await t.http.get('/v1/market/trending?chain=ethereum');
    expect(eth.body.tokens.map((x: Item) => [x.rank, x.chain, x.symbol])).toEqual([[1, 'ethereum', 'ETK']]);
    const sol = await t.http.get('/v1/market/trending?chain=solana');
    expect(named(sol.body.tokens)).toEqual(['solana:STK']);
    expect(named((await t.http.get('/v1/market/new?chain=ethereum')).body.tokens)).toEqual(['ethereum:ETK']);
    expect(named((await t.http.get('/v1/market/new?chain=base')).body.tokens)).toEqual(['base:BTK']);
    expect(named((await t.http.get('/v1/market/new?chain=solana')).body.tokens)).toEqual(['solana:STK']);
    // Every chain again, after the filtered answers were cached.
    expect(named((await t.http.get('/v1/market/trending')).body.tokens)).toEqual(['ethereum:ETK', 'base:BTK', 'solana:STK']);
  });

  it('refuses a chain the deployment does not serve, on every list and search', async () => {
    w = await chainWorld();
    for (const url of ['/v1/market/trending?chain=polygon', '/v1/market/new?chain=Base', '/v1/market/losers?chain=polygon', '/v1/search?q=tk&chain=polygon']) {
      const res = await w.t.http.get(url);
      expect(res.status, url).toBe(400);
      expect(res.body.error, url).toMatchObject({ code: 'invalid_parameter', param: 'chain', message: 'chain must be one of solana, base, ethereum' });
    }
  });
});

describe('/v1/search on several chains', () => {
  it('finds a plain 0x address on every chain, chain:address on one, and chain= narrows either', async () => {
    w = await chainWorld();
    const { t } = w;
    const all = await t.http.get(`/v1/search?q=${X}`);
    expect(all.status).toBe(200);
    expect(all.body.results).toEqual([
      { address: X, chain: 'ethereum', symbol: 'ETK', name: 'Ether Token', priceUsd: 4, liquidityUsd: 900, volume24hUsd: 105, matchedBy: 'address' },
      { address: X, chain: 'base', symbol: 'BTK', name: 'Base Token', priceUsd: 2.5, liquidityUsd: 700, volume24hUsd: 45, matchedBy: 'address' },
    ]);
    const upper = await t.http.get(`/v1/search?q=${X.toUpperCase().replace('0X', '0x')}`);
    expect(upper.body.results.map((x: Item) => x.chain)).toEqual(['ethereum', 'base']);
    const base = await t.http.get(`/v1/search?q=base:${X}`);
    expect(base.body.results.map((x: Item & { matchedBy: string }) => `${x.chain}:${x.symbol}:${x.matchedBy}`)).toEqual(['base:BTK:address']);
    const eth = await t.http.get(`/v1/search?q=${X}&chain=ethereum`);
    expect(named(eth.body.results)).toEqual(['ethereum:ETK']);
    expect((await t.http.get(`/v1/search?q=base:${X}&chain=ethereum`)).body.results).toEqual([]);
    expect(named((await t.http.get(`/v1/search?q=solana:${w.sol}`)).body.results)).toEqual(['solana:STK']);
  });

  it('matches symbols and names on every chain, or on one with chain=, cached per chain', async () => {
    w = await chainWorld();
    const { t } = w;
    expect(named((await t.http.get('/v1/search?q=btk&chain=base')).body.results)).toEqual(['base:BTK']);
    expect(named((await t.http.get('/v1/search?q=btk&chain=ethereum')).body.results)).toEqual([]);
    expect(named((await t.http.get('/v1/search?q=token&chain=ethereum')).body.results)).toEqual(['ethereum:ETK']);
    expect(named((await t.http.get('/v1/search?q=token&chain=base')).body.results)).toEqual(['base:BTK']);
    expect(named((await t.http.get('/v1/search?q=token')).body.results)).toEqual(['ethereum:ETK', 'base:BTK', 'solana:STK']);
    expect(named((await t.http.get('/v1/search?q=etk')).body.results)).toEqual(['ethereum:ETK']);
    expect(named((await t.http.get('/v1/search?q=token&chain=solana')).body.results)).toEqual(['solana:STK']);
  });

  it("fills a chain= answer from that chain's tokens without volume, leaving out the other chain's", async () => {
    w = await chainWorld();
    const { t } = w;
    // Untraded tokens: 6 on base, 6 on ethereum, all named "Quiet ...".
    const quiet = (chain: string, i: number) => ({
      ...aToken({ address: `0x${chain === 'base' ? 'b' : 'e'}${String(i).padStart(39, '0')}`, symbol: `Q${chain[0]}${i}`, name: `Quiet ${chain} ${i}` }),
      chain,
    });
    await t.ingest([0, 1, 2, 3, 4, 5].flatMap((i) => [quiet('base', i), quiet('ethereum', i)]));
    const res = await t.http.get('/v1/search?q=quiet&chain=ethereum&limit=4');
    expect(res.body.results.map((x: Item) => `${x.chain}:${x.address}`)).toEqual([0, 1, 2, 3].map((i) => `ethereum:0xe${String(i).padStart(39, '0')}`));
    const prefix = await t.http.get('/v1/search?q=qb&chain=base&limit=100');
    expect(prefix.body.results.map((x: Item) => x.symbol)).toEqual(['Qb0', 'Qb1', 'Qb2', 'Qb3', 'Qb4', 'Qb5']);
    expect((await t.http.get('/v1/search?q=qb&chain=ethereum')).body.results).toEqual([]);
  });
});

describe('/v1 lists on one chain', () => {
  it('answer as before chains (no chain field), take chain= of the one chain, and refuse any other', async () => {
    one = makeTestApp();
    const sol = anAddress('sol');
    const market = anAddress('mkt');
    await one.ingest([aToken({ address: sol, symbol: 'ONE' }), aMarket(sol, { address: market })]);
    await one.ingest([aTrade(sol, { market, blockTime: NOW - 100 })]);
    const res = await one.http.get('/v1/market/trending');
    expect(res.body.tokens.map((x: Item) => Object.keys(x).includes('chain'))).toEqual([false]);
    expect((await one.http.get('/v1/market/trending?chain=solana')).text).toBe(res.text);
    const found = await one.http.get(`/v1/search?q=solana:${sol}`);
    expect(found.body.results).toEqual([
      { address: sol, symbol: 'ONE', name: 'Test Token', priceUsd: 1, liquidityUsd: 10_000, volume24hUsd: 10, matchedBy: 'address' },
    ]);
    expect((await one.http.get(`/v1/search?q=${sol}`)).text).toBe(found.text);
    expect((await one.http.get('/v1/market/new?chain=base')).body.error).toMatchObject({ code: 'invalid_parameter', param: 'chain' });
  });
});

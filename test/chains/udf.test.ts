/**
 * The UDF datafeed in a deployment of several chains (docs/chains.md, The UDF datafeed and chains):
 * one 0x address is a token on Base and another on Ethereum; `chain:address` charts each, tickers
 * are store keys, descriptions and search items name the chain, `chain=` keeps a search to one
 * chain, and no cached answer of one chain is ever served for the other.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { CHAINS_ENV, HOUR, POOL, WALLET, WETH, ingestTwoChains, type Fixture } from './support.js';
import { aToken } from '../helpers/builders.js';

let t: TestApp;
let f: Fixture;
beforeEach(() => {
  t = makeTestApp({ env: CHAINS_ENV });
  f = ingestTwoChains(t);
});
afterEach(() => t?.close());

const symbol = async (name: string) => (await t.http.get('/udf/symbols').query({ symbol: name })).body;
const history = (name: string) => t.http.get('/udf/history').query({ symbol: name, resolution: '60', from: HOUR - 3600, to: HOUR + 3600 });

describe('/udf/config on several chains', () => {
  it('lists each chain as an exchange after All, then the dexes', async () => {
    const res = await t.http.get('/udf/config');
    expect(res.body.exchanges).toEqual([
      { value: '', name: 'All Exchanges', desc: '' },
      { value: 'solana', name: 'solana', desc: 'solana (chain)' },
      { value: 'base', name: 'base', desc: 'base (chain)' },
      { value: 'ethereum', name: 'ethereum', desc: 'ethereum (chain)' },
      { value: 'aerodrome', name: 'aerodrome', desc: 'aerodrome' },
      { value: 'raydium', name: 'raydium', desc: 'raydium' },
      { value: 'uniswap', name: 'uniswap', desc: 'uniswap' },
    ]);
  });
});

describe('/udf/symbols on several chains', () => {
  it('resolves chain:address to that chain token, ticker the store key and the chain in the description', async () => {
    const base = await symbol(`base:${WETH}`);
    expect([base.name, base.ticker, base.description, base.exchange, base.pricescale]).toEqual([
      'WETH',
      `base:${WETH}`,
      'Wrapped Ether (base)',
      'aerodrome',
      100,
    ]);
    const eth = await symbol(`ethereum:${WETH}`);
    expect([eth.name, eth.ticker, eth.description, eth.exchange, eth.currency_codes]).toEqual([
      'WETH',
      `ethereum:${WETH}`,
      'Wrapped Ether (ethereum)',
      'uniswap',
      ['USD', 'MCAP'],
    ]);
  });

  it('reads the chain in any letter case (the Charting Library upper-cases), and CHAIN:SYMBOL as that chain most liquid symbol', async () => {
    expect((await symbol(`BASE:${WETH.toUpperCase().replace('0X', '0X')}`)).ticker).toBe(`base:${WETH}`);
    expect((await symbol('base:WETH')).ticker).toBe(`base:${WETH}`);
    expect((await symbol('Ethereum:weth')).ticker).toBe(`ethereum:${WETH}`);
    // A plain symbol: the most liquid on any chain (Ethereum's, 5,000 against 1,000).
    expect((await symbol('WETH')).ticker).toBe(`ethereum:${WETH}`);
    // The default chain's token by its plain address, and by solana:address, ticker plain.
    const bonk = await symbol(`solana:${f.solanaToken}`);
    expect([bonk.ticker, bonk.description]).toEqual([f.solanaToken, 'Bonk (solana)']);
    expect((await symbol(f.solanaToken)).ticker).toBe(f.solanaToken);
  });

  it('finds no token where the chain holds none: a plain 0x address is on the default chain; an unknown X stays an exchange', async () => {
    for (const name of [WETH, `solana:${WETH}`, `polygon:${WETH}`]) {
      const res = await t.http.get('/udf/symbols').query({ symbol: name });
      expect([res.status, res.body.s, res.body.errmsg, res.body.error.code]).toEqual([404, 'error', 'unknown symbol', 'token_not_found']);
    }
    // aerodrome is a dex of Base's market: EXCHANGE:ADDRESS still reads as before chains.
    expect((await symbol(`aerodrome:WETH`)).ticker).toBe(`base:${WETH}`);
  });

  it("shows a token without markets under its own chain's name, which resolves it back", async () => {
    const bare = '0x00000000000000000000000000000000000000bb';
    t.ingest([{ ...aToken({ address: bare, symbol: 'BARE', name: 'No markets' }), chain: 'base' }]);
    const info = await symbol(`base:${bare}`);
    expect([info.exchange, info.listed_exchange, info.ticker]).toEqual(['base', 'base', `base:${bare}`]);
    // The stock adapter's full_name, EXCHANGE:SYMBOL, finds the same token.
    expect((await symbol('base:BARE')).ticker).toBe(`base:${bare}`);
  });

  it('names a pair by chain:market, ticker the market key', async () => {
    const base = await symbol(`base:${POOL}`);
    expect([base.name, base.ticker, base.description]).toEqual(['WETH/USDC', `base:${POOL}`, 'Wrapped Ether / USDC on aerodrome (base)']);
    const eth = await symbol(`ethereum:${POOL}`);
    expect([eth.name, eth.ticker, eth.description]).toEqual(['WETH/USDT', `ethereum:${POOL}`, 'Wrapped Ether / USDT on uniswap (ethereum)']);
  });
});

describe('/udf/history on several chains', () => {
  const baseBars = { s: 'ok', t: [HOUR], o: [3000], h: [3100], l: [3000], c: [3100], v: [61] };
  const ethBars = { s: 'ok', t: [HOUR], o: [3500], h: [3500], l: [3500], c: [3500], v: [70] };

  it('answers each chain bars, base cached first and never served for ethereum (nor back)', async () => {
    for (let round = 0; round < 2; round++) {
      expect((await history(`base:${WETH}`)).body).toEqual(baseBars);
      expect((await history(`ethereum:${WETH}`)).body).toEqual(ethBars);
    }
    expect((await history(`BASE:${WETH}`)).body).toEqual(baseBars);
    // By countback too (another path of the same cache).
    const cb = await t.http.get('/udf/history').query({ symbol: `ethereum:${WETH}`, resolution: '60', to: HOUR + 3600, countback: 5 });
    expect(cb.body).toEqual(ethBars);
    // In market cap: Ethereum's token has a circulating supply of 2,000.
    const mcap = await t.http.get('/udf/history').query({ symbol: `ethereum:${WETH}`, resolution: '60', from: HOUR, to: HOUR + 3600, currencyCode: 'MCAP' });
    expect(mcap.body).toEqual({ ...ethBars, o: [7_000_000], h: [7_000_000], l: [7_000_000], c: [7_000_000] });
  });

  it('moves one chain bars only when that chain trades', async () => {
    expect((await history(`base:${WETH}`)).body).toEqual(baseBars);
    expect((await history(`ethereum:${WETH}`)).body).toEqual(ethBars);
    t.ingest([
      {
        type: 'trade',
        chain: 'ethereum',
        token: WETH,
        market: POOL,
        signature: 'eth-late',
        index: 0,
        blockTime: HOUR + 300,
        side: 'sell',
        priceUsd: 3400,
        amount: 1,
        quoteAmount: 1,
        volumeUsd: 34,
        wallet: WALLET,
      },
    ]);
    expect((await history(`ethereum:${WETH}`)).body).toEqual({ ...ethBars, l: [3400], c: [3400], v: [104] });
    expect((await history(`base:${WETH}`)).body).toEqual(baseBars);
  });
});

describe('/udf/search on several chains', () => {
  const search = async (query: Record<string, string>) => (await t.http.get('/udf/search').query(query)).body as Record<string, string>[];
  const tickers = (items: Record<string, string>[]) => items.map((i) => i.ticker);

  it('lists both tokens of one symbol with their chains, tickers the store keys, most liquid first', async () => {
    expect(await search({ query: 'WETH' })).toEqual([
      {
        symbol: 'WETH',
        full_name: 'uniswap:WETH',
        description: 'Wrapped Ether (ethereum)',
        exchange: 'uniswap',
        ticker: `ethereum:${WETH}`,
        type: 'crypto',
        chain: 'ethereum',
      },
      {
        symbol: 'WETH',
        full_name: 'aerodrome:WETH',
        description: 'Wrapped Ether (base)',
        exchange: 'aerodrome',
        ticker: `base:${WETH}`,
        type: 'crypto',
        chain: 'base',
      },
    ]);
    expect(tickers(await search({ query: '' }))).toEqual([`ethereum:${WETH}`, `base:${WETH}`, f.solanaToken]);
  });

  it('finds an address on every chain, exactly or by prefix, and chain:address on its chain', async () => {
    expect(tickers(await search({ query: WETH }))).toEqual([`ethereum:${WETH}`, `base:${WETH}`]);
    expect(tickers(await search({ query: '0x4200' }))).toEqual([`ethereum:${WETH}`, `base:${WETH}`]);
    expect(tickers(await search({ query: `base:${WETH}` }))).toEqual([`base:${WETH}`]);
  });

  it('keeps to one chain with chain=, a chain as the exchange, or CHAIN:TEXT; two different chains match nothing', async () => {
    expect(tickers(await search({ query: 'WETH', chain: 'base' }))).toEqual([`base:${WETH}`]);
    expect(tickers(await search({ query: '', chain: 'solana' }))).toEqual([f.solanaToken]);
    expect(tickers(await search({ query: 'weth', exchange: 'ethereum' }))).toEqual([`ethereum:${WETH}`]);
    expect(tickers(await search({ query: 'BASE:WE' }))).toEqual([`base:${WETH}`]);
    expect(await search({ query: 'WETH', chain: 'base', exchange: 'ethereum' })).toEqual([]);
    // A dex still filters as before, on every chain.
    expect(tickers(await search({ query: 'WETH', exchange: 'aerodrome' }))).toEqual([`base:${WETH}`]);
  });

  it('refuses a chain outside CHAINS with 400 in the UDF error shape', async () => {
    const res = await t.http.get('/udf/search').query({ query: 'WETH', chain: 'polygon' });
    expect(res.status).toBe(400);
    expect([res.body.s, res.body.error.code, res.body.error.param]).toEqual(['error', 'invalid_parameter', 'chain']);
    expect(res.body.errmsg).toBe(res.body.error.message);
    expect(res.body.error.message).toContain('solana, base, ethereum');
  });
});

describe('/udf/quotes and /udf/marks on several chains', () => {
  it('quotes each chain token, the description naming its chain', async () => {
    t.clock.set((HOUR + 400) * 1000);
    const res = await t.http.get('/udf/quotes').query({ symbols: `base:${WETH},ethereum:${WETH},${WETH}` });
    const [base, eth, plain] = res.body.d;
    expect([base.n, base.v.lp, base.v.volume, base.v.description]).toEqual([`base:${WETH}`, 3100, 61, 'Wrapped Ether (base)']);
    expect([eth.n, eth.v.lp, eth.v.volume, eth.v.exchange]).toEqual([`ethereum:${WETH}`, 3500, 70, 'uniswap']);
    expect(plain).toEqual({ s: 'error', n: WETH, errmsg: 'unknown symbol', v: {} });
  });

  it('marks the wallet trades of the charted chain only', async () => {
    const marks = async (name: string) => (await t.http.get('/udf/marks').query({ symbol: name, from: HOUR, to: HOUR + 3600, wallet: WALLET })).body;
    const base = await marks(`base:${WETH}`);
    expect([base.id, base.time, base.label]).toEqual([f.baseTrades.map(() => expect.any(Number)), [HOUR + 100, HOUR + 200], ['B', 'S']]);
    const eth = await marks(`ethereum:${WETH}`);
    expect([eth.time, eth.label]).toEqual([[HOUR + 150], ['B']]);
  });
});

/**
 * The paths a TradingView Charting Library user takes, replayed as the stock UDF adapter sends
 * them (its URLs exactly: parameter order, upper-cased input, empty `type` and `exchange`), with
 * the answers pinned: jumping far back, pasting an address, EXCHANGE:TEXT search, a token's first
 * trade after the chart loaded, and a token without markets (docs/api.md, TradingView UDF datafeed).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aToken, aTrade, anAddress } from '../helpers/builders.js';
import { addToken, barsOf } from './support.js';

let t: TestApp;
afterEach(() => t?.close());

const MIN = 60;
const DAY = 86400;
/** 2024-01-10T00:00:00Z. */
const START = 1_704_844_800;

const get = (url: string) => t.http.get(url);

describe('jumping far back (setVisibleRange, Go to date)', () => {
  // One trade every 15 minutes for 5600 buckets (58 days): more bars than one answer holds.
  const BARS = 5600;
  const STEP = 15 * MIN;
  const END = START + BARS * STEP;

  function seed() {
    t = makeTestApp();
    const tok = addToken(t, { symbol: 'JUMP' });
    t.ingest(Array.from({ length: BARS }, (_, i) => aTrade(tok.address, { blockTime: START + i * STEP, priceUsd: 1 + i / 1000, volumeUsd: 1 })));
    return tok.address;
  }

  it('serves countback=5439 at 15 min as the newest 5000 bars, and scrolling further back reaches the start cleanly', async () => {
    const a = seed();
    const from = END - 60 * DAY;
    const first = await get(`/udf/history?symbol=${a}&resolution=15&from=${from}&to=${END}&countback=5439`);
    expect(first.status).toBe(200);
    expect(first.body.s).toBe('ok');
    const bars = barsOf(first.body);
    expect(bars).toHaveLength(5000);
    expect(bars[0]!.t).toBe(START + (BARS - 5000) * STEP);
    expect(bars.at(-1)!.t).toBe(START + (BARS - 1) * STEP);
    expect(bars.at(-1)!.c).toBe(1 + (BARS - 1) / 1000);
    // the same answer as asking for exactly 5000
    const exact = await get(`/udf/history?symbol=${a}&resolution=15&from=${from}&to=${END}&countback=5000`);
    expect(exact.body).toEqual(first.body);

    // the library then asks for what lies before the oldest bar it holds
    const older = await get(`/udf/history?symbol=${a}&resolution=15&from=${bars[0]!.t - 30 * DAY}&to=${bars[0]!.t}&countback=5439`);
    expect(older.body.s).toBe('ok');
    expect(older.body.t).toHaveLength(BARS - 5000);
    expect(older.body.t[0]).toBe(START);
    expect(older.body.t.at(-1)).toBe(bars[0]!.t - STEP);
    const start = await get(`/udf/history?symbol=${a}&resolution=15&from=${START - 30 * DAY}&to=${START}&countback=5439`);
    expect(start.body).toEqual({ s: 'no_data' });
  });

  it('serves countback=7483 at 1 min (Go to date 80 days back) as the newest 5000 bars', async () => {
    const a = seed();
    const res = await get(`/udf/history?symbol=${a}&resolution=1&from=${END - 80 * DAY}&to=${END}&countback=7483`);
    expect(res.status).toBe(200);
    expect(res.body.t).toHaveLength(5000);
    expect(res.body.t[0]).toBe(START + (BARS - 5000) * STEP);
    expect(res.body.t.at(-1)).toBe(START + (BARS - 1) * STEP);
  });

  it('serves any countback above 5000 as 5000, never 400', async () => {
    const a = seed();
    const want = await get(`/udf/history?symbol=${a}&resolution=15&to=${END}&countback=5000`);
    for (const countback of [5001, 10_000, 1_000_000, 9_007_199_254_740_991]) {
      const res = await get(`/udf/history?symbol=${a}&resolution=15&to=${END}&countback=${countback}`);
      expect(res.status, String(countback)).toBe(200);
      expect(res.body, String(countback)).toEqual(want.body);
    }
  });
});

describe('pasting an address into the symbol search', () => {
  it('resolves the upper-cased address the library sends to the one token it names', async () => {
    t = makeTestApp();
    const tok = addToken(t, { symbol: 'PASTE', address: `tokmixed${anAddress().slice(8)}` }, { orca: 10 });
    const typed = tok.address.toUpperCase();
    expect(typed).not.toBe(tok.address);
    const res = await get(`/udf/symbols?symbol=${typed}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'PASTE', ticker: tok.address, exchange: 'orca' });
    // the search dialog lists it too, under its real address
    const search = await get(`/udf/search?limit=30&query=${typed}&type=&exchange=`);
    expect(search.body).toEqual([expect.objectContaining({ ticker: tok.address, full_name: 'orca:PASTE' })]);
    // and EXCHANGE:ADDRESS, as the library builds it from full_name
    const onDex = await get(`/udf/symbols?symbol=ORCA%3A${typed}`);
    expect(onDex.body).toMatchObject({ ticker: tok.address, exchange: 'orca' });
  });

  it('refuses an address that matches two tokens case-insensitively, and still resolves each exact spelling', async () => {
    t = makeTestApp();
    const tail = anAddress().slice(4);
    const lower = addToken(t, { symbol: 'LOW', address: `abcd${tail}` });
    const upper = addToken(t, { symbol: 'UPP', address: `ABCD${tail}` });
    const res = await get(`/udf/symbols?symbol=${lower.address.toUpperCase()}`);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ s: 'error', errmsg: 'unknown symbol' });
    expect((await get(`/udf/symbols?symbol=${lower.address}`)).body.ticker).toBe(lower.address);
    expect((await get(`/udf/symbols?symbol=${upper.address}`)).body.ticker).toBe(upper.address);
  });
});

describe('typing EXCHANGE:TEXT in the search dialog', () => {
  it('lists TEXT on that exchange, the same token Enter charts', async () => {
    t = makeTestApp();
    const onOrca = addToken(t, { symbol: 'GIGA', name: 'Gigachad' }, { orca: 10, raydium: 5 });
    addToken(t, { symbol: 'GIGA', name: 'Giga copy' }, { raydium: 1000 });
    const onOrcaPrefix = addToken(t, { symbol: 'GIGAX', name: 'Other' }, { orca: 1 });
    const res = await get('/udf/search?limit=30&query=ORCA%3AGIGA&type=&exchange=');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { symbol: 'GIGA', full_name: 'orca:GIGA', description: 'Gigachad', exchange: 'orca', ticker: onOrca.address, type: 'crypto' },
      { symbol: 'GIGAX', full_name: 'orca:GIGAX', description: 'Other', exchange: 'orca', ticker: onOrcaPrefix.address, type: 'crypto' },
    ]);
    const enter = await get('/udf/symbols?symbol=ORCA%3AGIGA');
    expect(enter.body).toMatchObject({ ticker: onOrca.address, exchange: 'orca' });
    // the exchange selector and the typed exchange must agree
    expect((await get('/udf/search?limit=30&query=ORCA%3AGIGA&type=&exchange=orca')).body).toHaveLength(2);
    expect((await get('/udf/search?limit=30&query=ORCA%3AGIGA&type=&exchange=raydium')).body).toEqual([]);
    expect((await get('/udf/search?limit=30&query=METEORA%3AGIGA&type=&exchange=')).body).toEqual([]);
  });
});

describe('a token whose first trade arrives after the chart loaded', () => {
  it('resolves with pricescale 10^10, which shows a first trade at $0.00123 exactly', async () => {
    t = makeTestApp();
    const tok = addToken(t, { symbol: 'FRESH' });
    const info = await get('/udf/symbols?symbol=FRESH');
    expect(info.body.pricescale).toBe(10_000_000_000);
    t.ingest([aTrade(tok.address, { blockTime: START + 5, priceUsd: 0.00123 })]);
    const bars = await get(`/udf/history?symbol=${tok.address}&resolution=1S&from=${START}&to=${START + 10}&countback=2`);
    expect(bars.body).toMatchObject({ s: 'ok', t: [START + 5], c: [0.00123] });
    // the legend shows price * pricescale rounded to an integer of ticks, over pricescale
    const shown = Math.round(bars.body.c[0] * info.body.pricescale) / info.body.pricescale;
    expect(shown).toBe(0.00123);
    expect(shown.toFixed(Math.log10(info.body.pricescale))).toBe('0.0012300000');
    // once priced, the rule of four significant digits applies on the next resolve
    expect((await get('/udf/symbols?symbol=FRESH')).body.pricescale).toBe(1_000_000);
  });
});

describe('a token without markets', () => {
  it('shows the chain as its exchange, so the adapter builds full_name solana:NEWT, which resolves', async () => {
    t = makeTestApp();
    const tok = aToken({ symbol: 'NEWT', name: 'Newt' });
    t.ingest([tok]);
    const info = await get('/udf/symbols?symbol=NEWT');
    expect(info.body).toMatchObject({ name: 'NEWT', ticker: tok.address, exchange: 'solana', listed_exchange: 'solana' });
    const fullName = `${info.body.exchange}:${info.body.name}`;
    expect(fullName).toBe('solana:NEWT');
    const search = await get('/udf/search?limit=30&query=NEWT&type=&exchange=');
    expect(search.body).toEqual([{ symbol: 'NEWT', full_name: 'solana:NEWT', description: 'Newt', exchange: 'solana', ticker: tok.address, type: 'crypto' }]);
    const again = await get(`/udf/symbols?symbol=${encodeURIComponent(fullName.toUpperCase())}`);
    expect(again.body).toMatchObject({ ticker: tok.address, exchange: 'solana' });
    expect((await get('/udf/search?limit=30&query=SOLANA%3ANEWT&type=&exchange=')).body).toEqual(search.body);
    const quotes = await get(`/udf/quotes?symbols=${encodeURIComponent(fullName)}`);
    expect(quotes.body.d[0]).toMatchObject({ s: 'ok', n: 'solana:NEWT', v: { exchange: 'solana', short_name: 'NEWT' } });
  });

  it('uses the configured chain name', async () => {
    t = makeTestApp({ env: { CHAIN: 'base' } });
    const tok = aToken({ symbol: 'NEWT', address: `0x${'ab'.repeat(20)}` });
    t.ingest([tok]);
    expect((await get('/udf/symbols?symbol=NEWT')).body).toMatchObject({ exchange: 'base', listed_exchange: 'base' });
    expect((await get('/udf/search?limit=30&query=BASE%3ANEWT&type=&exchange=')).body[0]).toMatchObject({ full_name: 'base:NEWT' });
  });
});

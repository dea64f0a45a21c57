/**
 * /udf/history: the contract's rules one by one (docs/api.md, TradingView UDF datafeed, and the candle rules of
 * docs/api.md, Data and ingest), and every way a parameter can be wrong.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aTrade } from '../helpers/builders.js';
import { addToken, addTrades } from './support.js';

let t: TestApp;
afterEach(() => t?.close());

const MIN = 60;
const DAY = 86400;
/** 2024-01-10T00:00:00Z, a Wednesday. */
const WED = 1_704_844_800;

function setup() {
  t = makeTestApp();
  return addToken(t, { symbol: 'BONK', name: 'Bonk' });
}

const history = (query: Record<string, string | number>) => t.http.get('/udf/history').query(query);

describe('/udf/history bars', () => {
  it('answers ascending bars with every t in [from, to), open/close in trade order', async () => {
    const tok = setup();
    addTrades(t, tok.address, [
      [WED + 10, 2, 5],
      [WED + 70, 3, 1],
      [WED + 65, 4, 2],
      [WED + 119, 1, 4],
      [WED + 120, 9, 9],
    ]);
    const res = await history({ symbol: tok.address, resolution: '1', from: WED, to: WED + 120 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ s: 'ok', t: [WED, WED + MIN], o: [2, 4], h: [2, 4], l: [2, 1], c: [2, 1], v: [5, 7] });
  });

  it('keeps the whole newest bucket when to falls inside it, and leaves out a bucket starting before from', async () => {
    const tok = setup();
    addTrades(t, tok.address, [
      [WED + 30, 1],
      [WED + 90, 2],
      [WED + 150, 3],
      [WED + 170, 4],
    ]);
    const res = await history({ symbol: tok.address, resolution: '1', from: WED + 1, to: WED + 121 });
    expect(res.body.t).toEqual([WED + 60, WED + 120]);
    expect(res.body.c).toEqual([2, 4]);
  });

  it('starts daily bars at 00:00 UTC, weekly bars on Monday and monthly bars on the 1st, aliases included', async () => {
    const tok = setup();
    addTrades(t, tok.address, [
      [WED + 5 * 3600, 1],
      [WED + DAY + 100, 2],
      [WED + 5 * DAY, 3], // Monday 2024-01-15
      [1_706_745_600 + 10, 4], // 2024-02-01
    ]);
    const q = { symbol: tok.address, from: 1_700_000_000, to: 1_710_000_000 };
    const days = await history({ ...q, resolution: '1D' });
    expect(days.body.t).toEqual([WED, WED + DAY, WED + 5 * DAY, 1_706_745_600]);
    expect((await history({ ...q, resolution: 'D' })).body).toEqual(days.body);
    const weeks = await history({ ...q, resolution: '1W' });
    expect(weeks.body.t).toEqual([WED - 2 * DAY, WED + 5 * DAY, 1_706_486_400]);
    expect(weeks.body.o).toEqual([1, 3, 4]);
    expect((await history({ ...q, resolution: 'W' })).body).toEqual(weeks.body);
    const months = await history({ ...q, resolution: '1M' });
    expect(months.body.t).toEqual([1_704_067_200, 1_706_745_600]);
    expect(months.body.c).toEqual([3, 4]);
    expect((await history({ ...q, resolution: 'M' })).body).toEqual(months.body);
  });

  it('answers second resolutions from raw trades', async () => {
    const tok = setup();
    addTrades(t, tok.address, [
      [WED + 1, 1],
      [WED + 4, 2],
      [WED + 5, 3],
      [WED + 31, 4],
    ]);
    const q = { symbol: tok.address, from: WED, to: WED + 60 };
    expect((await history({ ...q, resolution: '1S' })).body.t).toEqual([WED + 1, WED + 4, WED + 5, WED + 31]);
    expect((await history({ ...q, resolution: '5S' })).body).toMatchObject({ t: [WED, WED + 5, WED + 30], o: [1, 3, 4], c: [2, 3, 4] });
    expect((await history({ ...q, resolution: '30S' })).body.t).toEqual([WED, WED + 30]);
  });

  it('accepts a to in the future', async () => {
    const tok = setup();
    addTrades(t, tok.address, [[WED, 1]]);
    const res = await history({ symbol: tok.address, resolution: '60', from: WED - DAY, to: 4_000_000_000 });
    expect(res.body).toMatchObject({ s: 'ok', t: [WED] });
  });

  it('finds the token by symbol and EXCHANGE:SYMBOL as well as by address', async () => {
    const tok = setup();
    addTrades(t, tok.address, [[WED, 1]]);
    for (const symbol of ['bonk', 'raydium:BONK', ':BONK']) {
      const res = await history({ symbol, resolution: '1', from: WED, to: WED + 60 });
      expect(res.body, symbol).toMatchObject({ s: 'ok', t: [WED] });
    }
  });
});

describe('/udf/history countback', () => {
  it('ignores from and returns exactly countback bars before to when the store has them', async () => {
    const tok = setup();
    addTrades(
      t,
      tok.address,
      Array.from({ length: 10 }, (_, i) => [WED + i * MIN, i + 1] as const),
    );
    const res = await history({ symbol: tok.address, resolution: '1', from: WED + 9 * MIN, to: WED + 9 * MIN + 1, countback: 4 });
    expect(res.body.t).toEqual([6, 7, 8, 9].map((i) => WED + i * MIN));
    // the adapter's 10-second poll asks for 2 bars in a range that may hold only one
    const poll = await history({ symbol: tok.address, resolution: '1', from: WED + 9 * MIN, to: WED + 10 * MIN, countback: 2 });
    expect(poll.body.t).toEqual([WED + 8 * MIN, WED + 9 * MIN]);
  });

  it('returns what exists when the store has fewer bars, and no_data without nextTime when it has none', async () => {
    const tok = setup();
    addTrades(t, tok.address, [
      [WED, 1],
      [WED + MIN, 2],
    ]);
    const few = await history({ symbol: tok.address, resolution: '1', to: WED + DAY, countback: 300 });
    expect(few.body.t).toEqual([WED, WED + MIN]);
    const none = await history({ symbol: tok.address, resolution: '1', from: 0, to: WED, countback: 300 });
    expect(none.body).toEqual({ s: 'no_data' });
  });

  it('treats countback=0 as range mode', async () => {
    const tok = setup();
    addTrades(t, tok.address, [
      [WED, 1],
      [WED + MIN, 2],
    ]);
    const res = await history({ symbol: tok.address, resolution: '1', from: WED + MIN, to: WED + DAY, countback: 0 });
    expect(res.body.t).toEqual([WED + MIN]);
  });
});

describe('/udf/history limits and empty ranges', () => {
  it('returns at most 5000 bars, keeping the newest', async () => {
    const tok = setup();
    t.ingest(Array.from({ length: 5003 }, (_, i) => aTrade(tok.address, { blockTime: WED + i, priceUsd: i + 1 })));
    const range = await history({ symbol: tok.address, resolution: '1S', from: 0, to: WED + DAY });
    expect(range.body.t).toHaveLength(5000);
    expect(range.body.t[0]).toBe(WED + 3);
    expect(range.body.t.at(-1)).toBe(WED + 5002);
    const cb = await history({ symbol: tok.address, resolution: '1S', to: WED + DAY, countback: 5000 });
    expect(cb.body.t).toEqual(range.body.t);
  });

  it('points nextTime (seconds) at the newest older bar, and leaves it out at the start of history', async () => {
    const tok = setup();
    addTrades(t, tok.address, [
      [WED + 30, 1],
      [WED + 3 * DAY, 2],
    ]);
    const gap = await history({ symbol: tok.address, resolution: '1', from: WED + DAY, to: WED + 2 * DAY });
    expect(gap.body).toEqual({ s: 'no_data', nextTime: WED });
    const gapDays = await history({ symbol: tok.address, resolution: '1D', from: WED + DAY, to: WED + 2 * DAY });
    expect(gapDays.body).toEqual({ s: 'no_data', nextTime: WED });
    const start = await history({ symbol: tok.address, resolution: '1', from: WED - DAY, to: WED });
    expect(start.body).toEqual({ s: 'no_data' });
  });

  it('answers no_data for a token without trades', async () => {
    const tok = setup();
    const res = await history({ symbol: tok.address, resolution: '1D', from: 0, to: WED });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ s: 'no_data' });
  });
});

describe('/udf/history errors', () => {
  const ok = { resolution: '1', from: String(WED), to: String(WED + DAY) };

  async function expectError(query: string, status: number, code: string, param?: string) {
    const res = await t.http.get(`/udf/history?${query}`);
    expect(res.status, query).toBe(status);
    expect(res.body.s, query).toBe('error');
    expect(typeof res.body.errmsg, query).toBe('string');
    expect(res.body.error.code, query).toBe(code);
    expect(res.body.errmsg).toBe(res.body.error.message);
    if (param !== undefined) expect(res.body.error.param, query).toBe(param);
    return res;
  }

  it('answers an unknown symbol with 404 token_not_found and errmsg "unknown symbol"', async () => {
    setup();
    const res = await expectError(`symbol=NOPE&${new URLSearchParams(ok)}`, 404, 'token_not_found');
    expect(res.body.errmsg).toBe('unknown symbol');
  });

  it('answers a bad resolution, from >= to and missing bounds with 400 invalid_parameter', async () => {
    const tok = setup();
    const s = `symbol=${tok.address}`;
    for (const r of ['2', '1H', '1d', '7D', '0', 'S', '']) {
      if (r === '') await expectError(`${s}&resolution=&from=1&to=2`, 400, 'invalid_parameter', 'resolution');
      else await expectError(`${s}&resolution=${r}&from=1&to=2`, 400, 'invalid_parameter', 'resolution');
    }
    await expectError(`${s}&resolution=1&from=${WED}&to=${WED}`, 400, 'invalid_parameter', 'from');
    await expectError(`${s}&resolution=1&from=${WED + 1}&to=${WED}`, 400, 'invalid_parameter', 'from');
    await expectError(`${s}&resolution=1&from=${WED + 1}&to=${WED}&countback=0`, 400, 'invalid_parameter', 'from');
    await expectError(`${s}&resolution=1&to=${WED}`, 400, 'invalid_parameter', 'from');
    await expectError(`${s}&resolution=1&from=${WED}`, 400, 'invalid_parameter', 'to');
    await expectError(`resolution=1&from=1&to=2`, 400, 'invalid_parameter', 'symbol');
  });

  it('refuses numbers that are not plain decimal integers in range', async () => {
    const tok = setup();
    const s = `symbol=${tok.address}&resolution=1`;
    for (const bad of ['1e3', '0x10', '010', '-1', '-0', '1.5', '10abc', '%2010', 'abc', '99999999999999999999', "1'%20OR%201=1"]) {
      await expectError(`${s}&from=${bad}&to=${WED}`, 400, 'invalid_parameter', 'from');
      await expectError(`${s}&from=1&to=${bad}`, 400, 'invalid_parameter', 'to');
      await expectError(`${s}&to=${WED}&countback=${bad}`, 400, 'invalid_parameter', 'countback');
    }
    await expectError(`${s}&from=1&to=253402300801`, 400, 'invalid_parameter', 'to');
  });

  it('refuses repeated parameters', async () => {
    const tok = setup();
    const s = `symbol=${tok.address}&resolution=1&from=1&to=${WED}`;
    await expectError(`${s}&to=${WED + 1}`, 400, 'invalid_parameter', 'to');
    await expectError(`${s}&resolution=5`, 400, 'invalid_parameter', 'resolution');
    await expectError(`${s}&symbol=${tok.address}`, 400, 'invalid_parameter', 'symbol');
    await expectError(`${s}&countback=2&countback=3`, 400, 'invalid_parameter', 'countback');
  });

  it('accepts currencyCode=USD and unitId, which the adapter adds, and refuses another currency', async () => {
    const tok = setup();
    addTrades(t, tok.address, [[WED, 1]]);
    const res = await history({ symbol: tok.address, resolution: '1', from: WED, to: WED + 60, currencyCode: 'USD', unitId: 'anything' });
    expect(res.body).toMatchObject({ s: 'ok', t: [WED] });
    await expectError(`symbol=${tok.address}&resolution=1&from=1&to=2&currencyCode=EUR`, 400, 'invalid_parameter', 'currencyCode');
  });

  it('treats SQL-looking and odd symbols as unknown names', async () => {
    setup();
    for (const s of ["' OR 1=1 --", '%', '_', 'raydium:%', ':', 'a'.repeat(200)]) {
      await expectError(`symbol=${encodeURIComponent(s)}&resolution=1&from=1&to=2`, 404, 'token_not_found');
    }
    await expectError(`symbol=${'a'.repeat(201)}&resolution=1&from=1&to=2`, 400, 'invalid_parameter', 'symbol');
  });
});

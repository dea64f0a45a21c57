/** /udf/quotes: rolling 24 h quotes, items in the order asked, unknown names as error items. */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { addToken, addTrades } from './support.js';

let t: TestApp;
afterEach(() => t?.close());

const NOW = 1_700_000_000; // the test clock
const DAY = 86400;

describe('/udf/quotes', () => {
  it('answers rolling 24 h figures, change against the last trade at or before now - 24 h', async () => {
    t = makeTestApp();
    const tok = addToken(t, { symbol: 'BONK', name: 'Bonk' }, { raydium: 5 });
    addTrades(t, tok.address, [
      [NOW - 2 * DAY, 1, 100], // older than the base: not counted
      [NOW - DAY, 2, 100], // the base: at now - 24 h exactly, outside (now - 24 h, now]
      [NOW - DAY + 1, 3, 10],
      [NOW - 3600, 6, 20],
      [NOW - 60, 1.5, 30],
      [NOW, 2.5, 40],
      [NOW + 10, 99, 1000], // after now: not yet
    ]);
    const res = await t.http.get('/udf/quotes').query({ symbols: 'BONK' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      s: 'ok',
      d: [
        {
          s: 'ok',
          n: 'BONK',
          v: {
            lp: 2.5,
            ch: 0.5,
            chp: 25,
            volume: 100,
            open_price: 3,
            high_price: 6,
            low_price: 1.5,
            prev_close_price: 2,
            short_name: 'BONK',
            exchange: 'raydium',
            description: 'Bonk',
          },
        },
      ],
    });
  });

  it('keeps the order asked and n exactly as asked; unknown names are error items', async () => {
    t = makeTestApp();
    const a = addToken(t, { symbol: 'AAA' }, { orca: 1 });
    const b = addToken(t, { symbol: 'BBB' }, { raydium: 1 });
    addTrades(t, a.address, [[NOW - 10, 1]]);
    addTrades(t, b.address, [[NOW - 10, 2]]);
    const names = ['bbb', 'NOPE', `orca:AAA`, a.address, '', ' BBB'];
    const res = await t.http.get('/udf/quotes').query({ symbols: names.join(',') });
    expect(res.status).toBe(200);
    expect(res.body.s).toBe('ok');
    expect(res.body.d.map((i: { n: string }) => i.n)).toEqual(names);
    expect(res.body.d.map((i: { s: string }) => i.s)).toEqual(['ok', 'error', 'ok', 'ok', 'error', 'ok']);
    expect(res.body.d[1]).toEqual({ s: 'error', n: 'NOPE', errmsg: 'unknown symbol', v: {} });
    expect(res.body.d[0].v.lp).toBe(2);
    expect(res.body.d[2].v).toMatchObject({ lp: 1, exchange: 'orca' });
  });

  it('answers null prices and zero volume for a token without trades, and null change without a base', async () => {
    t = makeTestApp();
    const quiet = addToken(t, { symbol: 'QUIET' });
    const young = addToken(t, { symbol: 'YOUNG' });
    addTrades(t, young.address, [[NOW - 100, 4, 7]]);
    const res = await t.http.get('/udf/quotes').query({ symbols: `${quiet.address},${young.address}` });
    expect(res.body.d[0].v).toMatchObject({ lp: null, ch: null, chp: null, volume: 0, open_price: null, prev_close_price: null });
    expect(res.body.d[1].v).toMatchObject({ lp: 4, ch: null, chp: null, volume: 7, open_price: 4, high_price: 4, low_price: 4, prev_close_price: null });
  });

  it('answers a token quiet for a day with its last price, no change and no window figures', async () => {
    t = makeTestApp();
    const tok = addToken(t, { symbol: 'OLD' });
    addTrades(t, tok.address, [[NOW - 3 * DAY, 5, 1]]);
    const res = await t.http.get('/udf/quotes').query({ symbols: 'OLD' });
    expect(res.body.d[0].v).toMatchObject({ lp: 5, ch: 0, chp: 0, volume: 0, open_price: null, high_price: null, low_price: null, prev_close_price: 5 });
  });

  it('takes up to 100 names and refuses more, a missing list, or a repeated parameter with 400', async () => {
    t = makeTestApp();
    const hundred = Array.from({ length: 100 }, (_, i) => `N${i}`).join(',');
    const ok = await t.http.get('/udf/quotes').query({ symbols: hundred });
    expect(ok.status).toBe(200);
    expect(ok.body.d).toHaveLength(100);
    for (const q of [`symbols=${hundred},X`, '', 'symbols=', 'symbols=A&symbols=B']) {
      const res = await t.http.get(`/udf/quotes?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body).toMatchObject({ s: 'error', error: { code: 'invalid_parameter', param: 'symbols' } });
    }
  });
});

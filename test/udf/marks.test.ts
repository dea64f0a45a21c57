/**
 * A wallet's trades on the chart (docs/api.md, A wallet's trades on the chart; issue 32): /udf/config
 * says supports_marks, and /udf/marks, as the stock UDF adapter asks for it (symbol, from, to,
 * resolution; the page adds wallet), answers that wallet's trades of the token in [from, to) as
 * marks, equal to a naive pick from the raw trades: at most 1000, the newest, ascending.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { anAddress, aToken, aTrade, withMarket } from '../helpers/builders.js';
import { readRawTrades, readTokenId } from '../v1/naive.js';

let t: TestApp;
afterEach(() => t?.close());

const NOW = 1_700_000_000;
const EMPTY = { id: [], time: [], color: [], text: [], label: [], labelFontColor: [], minSize: [] };

async function seed(count = 60) {
  t = makeTestApp();
  const tok = aToken({ symbol: 'MRK' });
  const other = aToken({ symbol: 'OTH' });
  const wallet = anAddress('wal');
  await t.ingest([...withMarket(tok), ...withMarket(other)]);
  await t.ingest(
    Array.from({ length: count }, (_, i) =>
      aTrade(tok.address, {
        blockTime: NOW - 50_000 + ((i * 7919) % 50_000),
        side: i % 3 === 0 ? 'sell' : 'buy',
        priceUsd: 0.5 + i / 100,
        amount: 1000 + i,
        volumeUsd: (0.5 + i / 100) * (1000 + i),
        wallet: i % 4 === 3 ? anAddress('oth') : wallet,
      }),
    ),
  );
  // the same wallet on another token: never on this token's chart
  await t.ingest([aTrade(other.address, { blockTime: NOW - 100, wallet })]);
  return { tok, wallet };
}

/** The marks of the raw trades: the wallet's trades of the token in [from, to), the newest `max`, ascending in trade order. */
async function naiveMarks(token: string, wallet: string, from: number, to: number, max = 1000) {
  const mine = (await readRawTrades(t.store, await readTokenId(t.store, token))).filter((x) => x.wallet === wallet && x.bt >= from && x.bt < to);
  const kept = mine.slice(-max);
  return {
    id: kept.map((x) => Number(x.id)),
    time: kept.map((x) => x.bt),
    label: kept.map((x) => (Number(x.isBuy) === 1 ? 'B' : 'S')),
    color: kept.map((x) => (Number(x.isBuy) === 1 ? '#26a69a' : '#ef5350')),
  };
}

const marks = (q: string) => t.http.get(`/udf/marks?${q}`);

describe('/udf/marks', () => {
  it('says supports_marks in /udf/config', async () => {
    await seed(1);
    expect((await t.http.get('/udf/config')).body.supports_marks).toBe(true);
  });

  it("answers the wallet's trades of the token in [from, to) as marks, as the stock adapter asks (plus wallet)", async () => {
    const { tok, wallet } = await seed();
    const from = NOW - 40_000;
    const to = NOW - 5_000;
    const res = await marks(`symbol=${tok.address}&from=${from}&to=${to}&resolution=15&wallet=${wallet}`);
    expect(res.status).toBe(200);
    const want = await naiveMarks(tok.address, wallet, from, to);
    expect(want.id.length).toBeGreaterThan(20);
    expect({ id: res.body.id, time: res.body.time, label: res.body.label, color: res.body.color }).toEqual(want);
    expect(res.body.labelFontColor).toEqual(want.id.map(() => '#ffffff'));
    expect(res.body.minSize).toEqual(want.id.map(() => 14));
    // by symbol name and EXCHANGE:SYMBOL too, as the library names the chart
    expect((await marks(`symbol=MRK&from=${from}&to=${to}&resolution=15&wallet=${wallet}`)).body).toEqual(res.body);
  });

  it('writes side, amount, price, value and time in the text', async () => {
    t = makeTestApp();
    const tok = aToken({ symbol: 'TXT' });
    const wallet = anAddress('wal');
    await t.ingest(withMarket(tok));
    await t.ingest([
      aTrade(tok.address, { blockTime: 1_764_248_709, side: 'buy', amount: 1_234_567.891, priceUsd: 0.0000213, volumeUsd: 26.3, wallet }),
      aTrade(tok.address, { blockTime: 1_764_248_800, side: 'sell', amount: 0.5, priceUsd: 1234.5678, volumeUsd: 617.2839, wallet }),
    ]);
    t.clock.set(1_764_250_000_000);
    const res = await marks(`symbol=${tok.address}&from=1764200000&to=1764250000&resolution=1&wallet=${wallet}`);
    expect(res.body.text).toEqual([
      'Buy 1,234,567.89 TXT at $0.0000213 ($26.3) on 2025-11-27 13:05:09 UTC',
      'Sell 0.5 TXT at $1,234.57 ($617.28) on 2025-11-27 13:06:40 UTC',
    ]);
    expect(res.body.label).toEqual(['B', 'S']);
  });

  it('keeps at most 1000 marks, the newest', async () => {
    t = makeTestApp();
    const tok = aToken();
    const wallet = anAddress('wal');
    await t.ingest(withMarket(tok));
    await t.ingest(Array.from({ length: 1100 }, (_, i) => aTrade(tok.address, { blockTime: NOW - 2000 + i, wallet })));
    const res = await marks(`symbol=${tok.address}&from=0&to=${NOW}&resolution=1&wallet=${wallet}`);
    expect(res.body.id).toHaveLength(1000);
    expect(res.body.time[0]).toBe(NOW - 1900);
    expect(res.body.time.at(-1)).toBe(NOW - 901);
    expect(res.body).toMatchObject(await naiveMarks(tok.address, wallet, 0, NOW));
  });

  it('answers empty columns without a wallet, and for a wallet without trades of the token', async () => {
    const { tok } = await seed(5);
    expect((await marks(`symbol=${tok.address}&from=0&to=${NOW}&resolution=1D`)).body).toEqual(EMPTY);
    expect((await marks(`symbol=${tok.address}&from=0&to=${NOW}&resolution=1D&wallet=${anAddress('nob')}`)).body).toEqual(EMPTY);
  });

  it('drops a cached answer when the wallet trades again', async () => {
    const { tok, wallet } = await seed(8);
    const q = `symbol=${tok.address}&from=0&to=${NOW + 10}&resolution=1&wallet=${wallet}`;
    const before = (await marks(q)).body.id.length;
    await t.ingest([aTrade(tok.address, { blockTime: NOW, wallet, side: 'sell' })]);
    const after = await marks(q);
    expect(after.body.id).toHaveLength(before + 1);
    expect(after.body.label.at(-1)).toBe('S');
  });

  it('refuses bad values in the UDF and API forms, naming the parameter', async () => {
    const { tok, wallet } = await seed(2);
    for (const [q, param] of [
      [`symbol=${tok.address}&from=0&to=${NOW}&wallet=not-an-address`, 'wallet'],
      [`symbol=${tok.address}&from=${NOW}&to=${NOW}&wallet=${wallet}`, 'from'],
      [`symbol=${tok.address}&from=x&to=${NOW}`, 'from'],
      [`symbol=${tok.address}&from=0`, 'to'],
      [`symbol=${tok.address}&from=0&to=${NOW}&resolution=7`, 'resolution'],
      [`from=0&to=${NOW}`, 'symbol'],
      [`symbol=${tok.address}&from=0&to=${NOW}&wallet=${wallet}&wallet=${wallet}`, 'wallet'],
    ] as const) {
      const res = await marks(q);
      expect(res.status, q).toBe(400);
      expect(res.body, q).toMatchObject({ s: 'error', error: { code: 'invalid_parameter', param } });
    }
    const unknown = await marks(`symbol=NOPE&from=0&to=${NOW}&wallet=${wallet}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ s: 'error', errmsg: 'unknown symbol' });
  });
});

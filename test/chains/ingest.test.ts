/**
 * Ingest on several chains (docs/chains.md, Ingest): one POST /v1/ingest holding the same 0x token
 * and market on base and on ethereum with different trades stores two tokens, and each chain's
 * reads answer that chain's numbers exactly: the overview, the trades page, the candles and
 * /udf/history, each warmed for base first so a cached answer of base served for ethereum would
 * show. A record on a chain outside CHAINS refuses the batch with its line. Both engines.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { ndjson } from '../helpers/builders.js';
import { CHAINS, listing, T0, TOKEN, trade } from './two-chains.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** base: two buys at 2 and 3 USD (6 USD each); ethereum: one sell at 5 USD (5 USD). */
const BATCH = [
  ...listing('base'),
  ...listing('ethereum'),
  trade('base', 'b1', 2, 3, 60),
  trade('ethereum', 'e1', 5, 1, 90, 'sell'),
  trade('base', 'b2', 3, 2, 120),
];

const post = (app: TestApp, key: string, body: string) =>
  app.http.post('/v1/ingest').set('x-api-key', key).set('Content-Type', 'application/x-ndjson').send(body);

async function ingested() {
  const app = makeTestApp({ env: { CHAINS } });
  // The trades' window: the clock a minute after the last of them.
  app.clock.set((T0 + 180) * 1000);
  const { secret } = app.makeKey({ scopes: ['ingest', 'read'] });
  const res = await post(app, secret, ndjson(BATCH));
  expect([res.status, res.body]).toEqual([200, { accepted: 7, duplicates: 0 }]);
  await app.settled();
  return { app, key: secret };
}

type Bar = { t: number; o: number; h: number; l: number; c: number; v: number };

describe('POST /v1/ingest on two chains', () => {
  it('stores the same address as two tokens and two markets, one per chain', async () => {
    t = (await ingested()).app;
    expect((await t.sql<{ address: string; symbol: string }>('SELECT address, symbol FROM tokens ORDER BY address')).map((r) => [r.address, r.symbol])).toEqual(
      [
        [`base:${TOKEN}`, 'BASEW'],
        [`ethereum:${TOKEN}`, 'ETHW'],
      ],
    );
    const perToken = await t.sql<{ address: string; n: number; volume: number }>(
      'SELECT tokens.address AS address, count(*) AS n, sum(trades.volume_usd) AS volume FROM trades JOIN tokens ON tokens.id = trades.token_id GROUP BY tokens.address ORDER BY tokens.address',
    );
    expect(perToken.map((r) => [r.address, Number(r.n), Number(r.volume)])).toEqual([
      [`base:${TOKEN}`, 2, 12],
      [`ethereum:${TOKEN}`, 1, 5],
    ]);
  });

  it("answers each chain's overview, trades, candles and history, base warmed first", async () => {
    t = (await ingested()).app;
    const overview = async (chain: string) => {
      const res = await t!.http.get(`/v1/token/${chain}:${TOKEN}/overview`);
      expect(res.status).toBe(200);
      return { symbol: res.body.symbol, priceUsd: res.body.priceUsd, volume: res.body.windows['24h'].volumeUsd, trades: res.body.windows['24h'].trades };
    };
    const trades = async (chain: string) => {
      const res = await t!.http.get(`/v1/token/${chain}:${TOKEN}/trades`);
      expect(res.status).toBe(200);
      return res.body.trades.map((x: { signature: string; priceUsd: number; volumeUsd: number; side: string }) => [
        x.signature,
        x.side,
        x.priceUsd,
        x.volumeUsd,
      ]);
    };
    const candles = async (chain: string) => {
      const res = await t!.http.get(`/v1/token/${chain}:${TOKEN}/candles?resolution=1D&from=${T0 - 86_400}&to=${T0 + 86_400}`);
      expect(res.status).toBe(200);
      return res.body.candles.map((b: Bar) => [b.o, b.h, b.l, b.c, b.v]);
    };
    const history = async (chain: string) => {
      const res = await t!.http.get(`/udf/history?symbol=${chain}:${TOKEN}&resolution=1D&from=${T0 - 86_400}&to=${T0 + 86_400}`);
      expect(res.status).toBe(200);
      return [res.body.s, res.body.o, res.body.h, res.body.l, res.body.c, res.body.v];
    };
    for (let round = 0; round < 2; round++) {
      // base first: its answers are cached before ethereum's same address is asked.
      expect(await overview('base')).toEqual({ symbol: 'BASEW', priceUsd: 3, volume: 12, trades: 2 });
      expect(await overview('ethereum')).toEqual({ symbol: 'ETHW', priceUsd: 5, volume: 5, trades: 1 });
      expect(await trades('base')).toEqual([
        ['b2', 'buy', 3, 6],
        ['b1', 'buy', 2, 6],
      ]);
      expect(await trades('ethereum')).toEqual([['e1', 'sell', 5, 5]]);
      expect(await candles('base')).toEqual([[2, 3, 2, 3, 12]]);
      expect(await candles('ethereum')).toEqual([[5, 5, 5, 5, 5]]);
      expect(await history('base')).toEqual(['ok', [2], [3], [2], [3], [12]]);
      expect(await history('ethereum')).toEqual(['ok', [5], [5], [5], [5], [5]]);
    }
  });

  it('keeps a new trade of one chain out of the cached answers of the other', async () => {
    const w = await ingested();
    t = w.app;
    const price = async (chain: string) => (await t!.http.get(`/v1/token/${chain}:${TOKEN}/overview`)).body.priceUsd as number;
    expect([await price('base'), await price('ethereum')]).toEqual([3, 5]);
    const more = await post(t, w.key, ndjson([trade('ethereum', 'e2', 7, 1, 150)]));
    expect([more.status, more.body]).toEqual([200, { accepted: 1, duplicates: 0 }]);
    await t.settled();
    expect([await price('base'), await price('ethereum')]).toEqual([3, 7]);
  });

  it('refuses a batch naming a chain outside CHAINS with its line, writing nothing', async () => {
    t = makeTestApp({ env: { CHAINS } });
    const { secret } = t.makeKey({ scopes: ['ingest'] });
    const res = await post(
      t,
      secret,
      ndjson([...listing('base'), { ...trade('base', 'p1', 1, 1, 10), chain: 'polygon' }, { ...listing('ethereum')[0]!, chain: 'Base' }]),
    );
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_body');
    expect(res.body.error.details).toEqual([
      { line: 3, error: 'chain "polygon" is not one of CHAINS (solana, base, ethereum)' },
      { line: 4, error: 'chain "Base" is not one of CHAINS (solana, base, ethereum)' },
    ]);
    expect(await t.sql('SELECT address FROM tokens')).toEqual([]);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aToken, aTrade, anAddress, withMarket } from '../helpers/builders.js';
import { readRawTrades, readTokenId } from './naive.js';

let t: TestApp;
afterEach(() => t?.close());

const NOW = 1_700_000_000;

/** Ids of the token's stored trades with after <= blockTime < before, newest first in trade order. */
async function naiveRange(app: TestApp, token: string, after: number | null, before: number | null, side: string | null): Promise<number[]> {
  return (await readRawTrades(app.store, await readTokenId(app.store, token)))
    .reverse()
    .filter((r) => (after === null || r.bt >= after) && (before === null || r.bt < before))
    .filter((r) => side === null || (side === 'buy') === (r.isBuy === 1))
    .map((r) => r.id);
}

describe('GET /v1/token/:address/trades?after=&before=', () => {
  it('answers only trades with after <= blockTime < before, newest first', async () => {
    t = makeTestApp();
    const tok = aToken();
    t.ingest([...withMarket(tok), ...[10, 20, 20, 30, 40].map((dt) => aTrade(tok.address, { blockTime: NOW + dt }))]);
    const res = await t.http.get(`/v1/token/${tok.address}/trades?after=${NOW + 20}&before=${NOW + 40}`);
    expect(res.status).toBe(200);
    expect(res.body.trades.map((x: { blockTime: number }) => x.blockTime)).toEqual([NOW + 30, NOW + 20, NOW + 20]);
    expect(res.body.nextCursor).toBeNull();
    const onlyAfter = await t.http.get(`/v1/token/${tok.address}/trades?after=${NOW + 30}`);
    expect(onlyAfter.body.trades.map((x: { blockTime: number }) => x.blockTime)).toEqual([NOW + 40, NOW + 30]);
    const onlyBefore = await t.http.get(`/v1/token/${tok.address}/trades?before=${NOW + 20}`);
    expect(onlyBefore.body.trades.map((x: { blockTime: number }) => x.blockTime)).toEqual([NOW + 10]);
  });

  it('refuses after >= before, and malformed bounds, with 400 invalid_parameter', async () => {
    t = makeTestApp();
    const tok = aToken();
    t.ingest(withMarket(tok));
    const same = await t.http.get(`/v1/token/${tok.address}/trades?after=${NOW}&before=${NOW}`);
    expect(same.status).toBe(400);
    expect(same.body.error).toMatchObject({ code: 'invalid_parameter', param: 'after', message: 'after must be less than before' });
    for (const bad of ['after=-1', 'before=1e9', 'after=1.5', 'before=253402300801']) {
      const res = await t.http.get(`/v1/token/${tok.address}/trades?${bad}`);
      expect(res.status).toBe(400);
      expect(res.body.error.param).toBe(bad.split('=')[0]);
    }
  });

  it('binds the cursor to the range: replayed with another range, or none, it is 400 invalid_cursor', async () => {
    t = makeTestApp();
    const tok = aToken();
    t.ingest([...withMarket(tok), ...[1, 2, 3, 4].map((dt) => aTrade(tok.address, { blockTime: NOW + dt }))]);
    const first = await t.http.get(`/v1/token/${tok.address}/trades?limit=1&after=${NOW}&before=${NOW + 4}`);
    const cursor = first.body.nextCursor as string;
    expect(typeof cursor).toBe('string');
    for (const q of [`after=${NOW}&before=${NOW + 5}`, `after=${NOW + 1}&before=${NOW + 4}`, `after=${NOW}`, '']) {
      const res = await t.http.get(`/v1/token/${tok.address}/trades?limit=1&${q}&cursor=${cursor}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_cursor');
    }
    const ok = await t.http.get(`/v1/token/${tok.address}/trades?limit=1&after=${NOW}&before=${NOW + 4}&cursor=${cursor}`);
    expect(ok.body.trades.map((x: { blockTime: number }) => x.blockTime)).toEqual([NOW + 2]);
  });

  it('walks every trade of the range in the snapshot exactly once while newer and backfilled trades arrive', async () => {
    // One app, a fresh token per run: each run pages through only its own token's trades.
    const app = (t = makeTestApp({ env: { RATE_LIMIT_ANON: '100000000/60' } }));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 40 }),
        fc.integer({ min: 1, max: 6 }),
        fc.option(fc.integer({ min: 0, max: 40 }), { nil: null }),
        fc.option(fc.integer({ min: 1, max: 41 }), { nil: null }),
        fc.constantFrom(null, 'buy', 'sell'),
        fc.array(fc.array(fc.integer({ min: -5, max: 50 }), { maxLength: 4 }), { maxLength: 15 }),
        async (initial, limit, a, b, side, arrivals) => {
          fc.pre(a === null || b === null || a < b);
          const tok = aToken();
          await app.ingest(withMarket(tok));
          const wallet = anAddress('w');
          const mk = (dt: number) => aTrade(tok.address, { blockTime: NOW + dt, side: dt % 3 === 0 ? 'sell' : 'buy', wallet });
          if (initial.length > 0) await app.ingest(initial.map(mk));
          const after = a === null ? null : NOW + a;
          const before = b === null ? null : NOW + b;
          const expected = await naiveRange(app, tok.address, after, before, side);
          const query = [
            `limit=${limit}`,
            after === null ? '' : `after=${after}`,
            before === null ? '' : `before=${before}`,
            side === null ? '' : `side=${side}`,
          ]
            .filter((x) => x !== '')
            .join('&');
          const ids: number[] = [];
          let cursor: string | null = null;
          let k = 0;
          do {
            const res = await app.http.get(`/v1/token/${tok.address}/trades?${query}${cursor === null ? '' : `&cursor=${cursor}`}`);
            expect(res.status).toBe(200);
            ids.push(...res.body.trades.map((x: { id: number }) => x.id));
            cursor = res.body.nextCursor;
            const batch = arrivals[k++];
            if (batch !== undefined && batch.length > 0) await app.ingest(batch.map(mk));
          } while (cursor !== null);
          expect(ids).toEqual(expected);
        },
      ),
      { numRuns: 60 },
    );
  }, 120_000);
});

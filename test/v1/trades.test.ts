import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import request from 'supertest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aMarket, aToken, aTrade, anAddress, withMarket, marketOf } from '../helpers/builders.js';
import { createApp } from '../../src/app.js';
import { createServices } from '../../src/services/index.js';
import { createLogger } from '../../src/logger.js';
import type { TradeRecord } from '../../src/domain/records.js';
import { readRawTrades, readTokenId } from './naive.js';

let t: TestApp;
afterEach(() => t?.close());

const NOW = 1_700_000_000;

type Row = { id: number; blockTime: number; side: string; wallet: string };

/** The trades of the token as stored, newest first in trade order. */
async function naiveDesc(app: TestApp, token: string): Promise<Row[]> {
  const raw = await readRawTrades(app.store, await readTokenId(app.store, token));
  return raw.reverse().map((r) => ({ id: r.id, blockTime: r.bt, side: r.isBuy === 1 ? 'buy' : 'sell', wallet: r.wallet }));
}

async function walk(app: TestApp, token: string, query: string, between?: () => unknown): Promise<{ ids: number[]; pages: number }> {
  const ids: number[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const url: string = `/v1/token/${token}/trades?${query}${cursor === null ? '' : `&cursor=${cursor}`}`;
    const res = await app.http.get(url);
    expect(res.status).toBe(200);
    pages++;
    ids.push(...res.body.trades.map((x: { id: number }) => x.id));
    cursor = res.body.nextCursor;
    await between?.();
  } while (cursor !== null && pages < 10_000);
  return { ids, pages };
}

describe('GET /v1/token/:address/trades', () => {
  it('answers trades newest first in trade order with every field of T, dex null for an unknown market', async () => {
    t = makeTestApp();
    const tok = aToken();
    const m = aMarket(tok.address, { dex: 'orca' });
    t.ingest([...withMarket(tok), m]);
    const w = anAddress('w');
    t.ingest([
      aTrade(tok.address, {
        market: m.address,
        blockTime: NOW - 10,
        signature: 'sA',
        index: 3,
        side: 'sell',
        priceUsd: 2.5,
        amount: 7,
        quoteAmount: 0.5,
        volumeUsd: 17.5,
        wallet: w,
      }),
      aTrade(tok.address, { blockTime: NOW - 20, signature: 'sB' }),
      aTrade(tok.address, { blockTime: NOW - 10, signature: 'sC' }),
    ]);
    t.ingest([aTrade(tok.address, { blockTime: NOW - 30, signature: 'sD' })]); // backfill: newest id, oldest time
    // Ingest refuses a trade of an unknown market; a store written before that rule may hold one.
    await t.sql('DELETE FROM markets WHERE address = ?', marketOf(tok.address));
    const res = await t.http.get(`/v1/token/${tok.address}/trades`);
    expect(res.status).toBe(200);
    expect(res.body.trades.map((x: { signature: string }) => x.signature)).toEqual(['sC', 'sA', 'sB', 'sD']);
    expect(res.body.trades[1]).toEqual({
      id: 1,
      signature: 'sA',
      index: 3,
      blockTime: NOW - 10,
      side: 'sell',
      priceUsd: 2.5,
      amount: 7,
      quoteAmount: 0.5,
      volumeUsd: 17.5,
      wallet: w,
      market: m.address,
      dex: 'orca',
    });
    expect(res.body.trades[0].dex).toBeNull();
    expect(res.body.nextCursor).toBeNull();
  });

  it('defaults limit to 100 and gives null nextCursor after an exactly full last page', async () => {
    t = makeTestApp();
    const tok = aToken();
    t.ingest(withMarket(tok));
    t.ingest(Array.from({ length: 200 }, (_, i) => aTrade(tok.address, { blockTime: NOW - i })));
    const first = await t.http.get(`/v1/token/${tok.address}/trades`);
    expect(first.body.trades).toHaveLength(100);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await t.http.get(`/v1/token/${tok.address}/trades?cursor=${first.body.nextCursor}`);
    expect(second.body.trades).toHaveLength(100);
    expect(second.body.nextCursor).toBeNull();
  });

  it('filters by side and wallet, alone and together', async () => {
    t = makeTestApp();
    const tok = aToken();
    const [a, b] = [anAddress('a'), anAddress('b')];
    await t.ingest(withMarket(tok));
    const trades: TradeRecord[] = [];
    for (let i = 0; i < 40; i++) trades.push(aTrade(tok.address, { blockTime: NOW - (i % 7), side: i % 3 === 0 ? 'buy' : 'sell', wallet: i % 2 ? a : b }));
    await t.ingest(trades);
    const all = await naiveDesc(t, tok.address);
    const cases: [string, (r: Row) => boolean][] = [
      ['side=buy', (r) => r.side === 'buy'],
      ['side=sell', (r) => r.side === 'sell'],
      [`wallet=${a}`, (r) => r.wallet === a],
      [`wallet=${b}&side=buy`, (r) => r.wallet === b && r.side === 'buy'],
    ];
    for (const [query, keep] of cases) {
      const { ids } = await walk(t, tok.address, `${query}&limit=3`);
      expect(ids).toEqual(all.filter(keep).map((r) => r.id));
    }
  });

  it('walks every trade of the snapshot exactly once, in order, while newer and backfilled trades arrive between pages', async () => {
    const filters = fc.constantFrom('none', 'buy', 'sell', 'wallet', 'walletSell');
    // One app, fresh tokens per run: each run pages through only its own token's trades.
    const app = (t = makeTestApp({ env: { RATE_LIMIT_ANON: '100000000/60' } }));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ dt: fc.integer({ min: 0, max: 40 }), buy: fc.boolean(), w: fc.integer({ min: 0, max: 2 }) }), { maxLength: 50 }),
        fc.integer({ min: 1, max: 7 }),
        filters,
        fc.array(fc.array(fc.record({ dt: fc.integer({ min: -5, max: 60 }), buy: fc.boolean(), w: fc.integer({ min: 0, max: 2 }) }), { maxLength: 4 }), {
          maxLength: 20,
        }),
        async (initial, limit, filter, arrivals) => {
          const tok = aToken();
          const other = aToken();
          const wallets = [anAddress('w'), anAddress('w'), anAddress('w')];
          await app.ingest([...withMarket(tok), ...withMarket(other)]);
          const mk = (r: { dt: number; buy: boolean; w: number }, token = tok.address) =>
            aTrade(token, { blockTime: NOW - 20 + r.dt, side: r.buy ? 'buy' : 'sell', wallet: wallets[r.w]! });
          if (initial.length > 0) await app.ingest(initial.map((r) => mk(r)));
          const keep = (r: Row) =>
            filter === 'none'
              ? true
              : filter === 'buy'
                ? r.side === 'buy'
                : filter === 'sell'
                  ? r.side === 'sell'
                  : filter === 'wallet'
                    ? r.wallet === wallets[0]
                    : r.wallet === wallets[0] && r.side === 'sell';
          const query =
            filter === 'none'
              ? ''
              : filter === 'buy' || filter === 'sell'
                ? `side=${filter}`
                : filter === 'wallet'
                  ? `wallet=${wallets[0]}`
                  : `wallet=${wallets[0]}&side=sell`;
          const expected = (await naiveDesc(app, tok.address)).filter(keep).map((r) => r.id);
          let k = 0;
          const { ids } = await walk(app, tok.address, `limit=${limit}&${query}`, async () => {
            const batch = arrivals[k++];
            if (batch !== undefined && batch.length > 0) await app.ingest([...batch.map((r) => mk(r)), mk(batch[0]!, other.address)]);
          });
          expect(ids).toEqual(expected);
          expect(new Set(ids).size).toBe(ids.length);
        },
      ),
      { numRuns: 60 },
    );
  }, 120_000);

  it('refuses a cursor changed in any one character, cut, or padded with 400 invalid_cursor', async () => {
    t = makeTestApp();
    const tok = aToken();
    t.ingest(withMarket(tok));
    t.ingest(Array.from({ length: 5 }, (_, i) => aTrade(tok.address, { blockTime: NOW - i })));
    const first = await t.http.get(`/v1/token/${tok.address}/trades?limit=2`);
    const cursor: string = first.body.nextCursor;
    expect((await t.http.get(`/v1/token/${tok.address}/trades?limit=2&cursor=${cursor}`)).status).toBe(200);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=.~+/';
    const expectRefused = async (bad: string) => {
      const res = await t.http.get(`/v1/token/${tok.address}/trades`).query({ limit: 2, cursor: bad });
      expect(res.status, bad).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_cursor', param: 'cursor' });
    };
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: cursor.length - 1 }), fc.constantFrom(...alphabet), async (pos, ch) => {
        fc.pre(cursor[pos] !== ch);
        await expectRefused(cursor.slice(0, pos) + ch + cursor.slice(pos + 1));
      }),
      { numRuns: 150 },
    );
    for (let len = 1; len < cursor.length; len++) await expectRefused(cursor.slice(0, len));
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 6, unit: fc.constantFrom(...alphabet) }), fc.boolean(), async (pad, front) => {
        await expectRefused(front ? pad + cursor : cursor + pad);
      }),
      { numRuns: 40 },
    );
    for (const bad of ['x', 'null', "' OR 1=1 --", '%00', cursor.toLowerCase(), Buffer.from(cursor, 'base64url').toString('base64')]) {
      if (bad !== cursor) await expectRefused(bad);
    }
  });

  it('refuses a cursor replayed on another token, side or wallet, but accepts another limit', async () => {
    t = makeTestApp();
    const [tok, other] = [aToken(), aToken()];
    const w = anAddress('w');
    t.ingest([...withMarket(tok), ...withMarket(other)]);
    t.ingest([...Array.from({ length: 6 }, (_, i) => aTrade(tok.address, { blockTime: NOW - i, wallet: w })), aTrade(other.address)]);
    const issued = async (q: string) => (await t.http.get(`/v1/token/${tok.address}/trades?limit=1&${q}`)).body.nextCursor as string;
    const plain = await issued('');
    const buys = await issued('side=buy');
    const mine = await issued(`wallet=${w}`);
    const tries: [string, string, string][] = [
      [other.address, plain, ''],
      [tok.address, plain, 'side=buy'],
      [tok.address, plain, `wallet=${w}`],
      [tok.address, buys, ''],
      [tok.address, buys, 'side=sell'],
      [tok.address, mine, ''],
      [tok.address, mine, `wallet=${anAddress('x')}`],
      [tok.address, mine, `wallet=${w}&side=buy`],
    ];
    for (const [token, cursor, q] of tries) {
      const res = await t.http.get(`/v1/token/${token}/trades?cursor=${cursor}&${q}`);
      expect(res.status, `${token} ${q}`).toBe(400);
      expect(res.body.error.code).toBe('invalid_cursor');
    }
    const ok = await t.http.get(`/v1/token/${tok.address}/trades?limit=50&side=buy&cursor=${buys}`);
    expect(ok.status).toBe(200);
    expect(ok.body.trades).toHaveLength(5);
  });

  it('checks a cursor once per cached page: the same cursor elsewhere, or changed, is still refused', async () => {
    t = makeTestApp();
    const [tok, other] = [aToken(), aToken()];
    t.ingest([...withMarket(tok), ...withMarket(other)]);
    t.ingest([
      ...Array.from({ length: 4 }, (_, i) => aTrade(tok.address, { blockTime: NOW - i })),
      ...Array.from({ length: 4 }, (_, i) => aTrade(other.address, { blockTime: NOW - i })),
    ]);
    const cursor = (await t.http.get(`/v1/token/${tok.address}/trades?limit=1`)).body.nextCursor as string;
    const page = `/v1/token/${tok.address}/trades?limit=1&cursor=${cursor}`;
    const a = await t.http.get(page);
    const b = await t.http.get(page);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.body).toEqual(a.body);
    expect(b.headers.etag).toBe(a.headers.etag);
    expect(a.body.trades.map((x: { blockTime: number }) => x.blockTime)).toEqual([NOW - 1]);
    // The genuine page is cached now; the same cursor on the other token, with a filter, or one
    // character changed, is a page of its own, checked and refused.
    const flipped = cursor.slice(0, -1) + (cursor.endsWith('A') ? 'B' : 'A');
    for (const url of [
      `/v1/token/${other.address}/trades?limit=1&cursor=${cursor}`,
      `${page}&side=buy`,
      `${page}&after=${NOW - 10}`,
      `/v1/token/${tok.address}/trades?limit=1&cursor=${flipped}`,
    ]) {
      const res = await t.http.get(url);
      expect(res.status, url).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_cursor', param: 'cursor' });
    }
    expect((await t.http.get(page)).body).toEqual(a.body);
  });

  it('keeps cursors valid across a restart (the secret is in the store)', async () => {
    t = makeTestApp();
    const tok = aToken();
    await t.ingest([...withMarket(tok), ...Array.from({ length: 3 }, (_, i) => aTrade(tok.address, { blockTime: NOW - i }))]);
    const cursor = (await t.http.get(`/v1/token/${tok.address}/trades?limit=1`)).body.nextCursor;
    // The app a restarted process builds on the same store: its own services, nothing kept in memory.
    const { config, store, clock } = t;
    const restarted = createApp({ config, store, clock, services: createServices({ store, clock, config }), logger: createLogger('silent') });
    const res = await request(restarted.callback()).get(`/v1/token/${tok.address}/trades?limit=1&cursor=${cursor}`);
    expect(res.status).toBe(200);
    expect(res.body.trades[0].blockTime).toBe(NOW - 1);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=1001', 'limit'],
    ['limit=1e3', 'limit'],
    ['limit=0x10', 'limit'],
    ['limit=-1', 'limit'],
    ['limit=010', 'limit'],
    ['limit=%2010', 'limit'],
    ['limit=1.5', 'limit'],
    ['limit=10abc', 'limit'],
    ['limit=-0', 'limit'],
    ['limit=99999999999999999999', 'limit'],
    ['limit=1&limit=2', 'limit'],
    ['side=BUY', 'side'],
    ['side=both', 'side'],
    ['wallet=nope', 'wallet'],
    ["wallet=' OR 1=1 --", 'wallet'],
    ['cursor=a&cursor=b', 'cursor'],
    ['side=buy&side=sell', 'side'],
  ])('answers ?%s with 400 invalid_parameter naming %s', async (query, param) => {
    t = makeTestApp();
    const tok = aToken();
    t.ingest(withMarket(tok));
    const res = await t.http.get(`/v1/token/${tok.address}/trades?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param });
  });

  it('treats empty parameters as absent and answers an unknown token with 404', async () => {
    t = makeTestApp();
    const tok = aToken();
    t.ingest([...withMarket(tok), aTrade(tok.address)]);
    const res = await t.http.get(`/v1/token/${tok.address}/trades?limit=&cursor=&side=&wallet=`);
    expect(res.status).toBe(200);
    expect(res.body.trades).toHaveLength(1);
    const unknown = await t.http.get(`/v1/token/${anAddress()}/trades`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('token_not_found');
  });
});

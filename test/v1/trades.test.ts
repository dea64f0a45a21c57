import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aMarket, aToken, aTrade, anAddress } from '../helpers/builders.js';
import { openStore } from '../../src/store/db.js';
import { createTradesRepo } from '../../src/store/trades-repo.js';
import type { TradeRecord } from '../../src/domain/records.js';

let t: TestApp;
afterEach(() => t?.close());

const NOW = 1_700_000_000;

type Row = { id: number; blockTime: number; side: string; wallet: string };

/** The trades of the token as stored, newest first in trade order. */
function naiveDesc(app: TestApp, token: string): Row[] {
  return app.store.db
    .prepare(
      `SELECT t.id, t.block_time AS blockTime, CASE WHEN t.is_buy = 1 THEN 'buy' ELSE 'sell' END AS side, t.wallet
       FROM trades t JOIN tokens k ON k.id = t.token_id WHERE k.address = ? ORDER BY t.block_time DESC, t.id DESC`,
    )
    .all(token) as Row[];
}

async function walk(app: TestApp, token: string, query: string, between?: () => void): Promise<{ ids: number[]; pages: number }> {
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
    between?.();
  } while (cursor !== null && pages < 10_000);
  return { ids, pages };
}

describe('GET /v1/token/:address/trades', () => {
  it('answers trades newest first in trade order with every field of T, dex null for an unknown market', async () => {
    t = makeTestApp();
    const tok = aToken();
    const m = aMarket(tok.address, { dex: 'orca' });
    t.ingest([tok, m]);
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
    t.ingest([tok]);
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
    t.ingest([tok]);
    const trades: TradeRecord[] = [];
    for (let i = 0; i < 40; i++) trades.push(aTrade(tok.address, { blockTime: NOW - (i % 7), side: i % 3 === 0 ? 'buy' : 'sell', wallet: i % 2 ? a : b }));
    t.ingest(trades);
    const all = naiveDesc(t, tok.address);
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
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ dt: fc.integer({ min: 0, max: 40 }), buy: fc.boolean(), w: fc.integer({ min: 0, max: 2 }) }), { maxLength: 50 }),
        fc.integer({ min: 1, max: 7 }),
        filters,
        fc.array(fc.array(fc.record({ dt: fc.integer({ min: -5, max: 60 }), buy: fc.boolean(), w: fc.integer({ min: 0, max: 2 }) }), { maxLength: 4 }), {
          maxLength: 20,
        }),
        async (initial, limit, filter, arrivals) => {
          const app = makeTestApp();
          try {
            const tok = aToken();
            const other = aToken();
            const wallets = [anAddress('w'), anAddress('w'), anAddress('w')];
            app.ingest([tok, other]);
            const mk = (r: { dt: number; buy: boolean; w: number }, token = tok.address) =>
              aTrade(token, { blockTime: NOW - 20 + r.dt, side: r.buy ? 'buy' : 'sell', wallet: wallets[r.w]! });
            if (initial.length > 0) app.ingest(initial.map((r) => mk(r)));
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
            const expected = naiveDesc(app, tok.address)
              .filter(keep)
              .map((r) => r.id);
            let k = 0;
            const { ids } = await walk(app, tok.address, `limit=${limit}&${query}`, () => {
              const batch = arrivals[k++];
              if (batch !== undefined && batch.length > 0) app.ingest([...batch.map((r) => mk(r)), mk(batch[0]!, other.address)]);
            });
            expect(ids).toEqual(expected);
            expect(new Set(ids).size).toBe(ids.length);
          } finally {
            app.close();
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('refuses a cursor changed in any one character, cut, or padded with 400 invalid_cursor', async () => {
    t = makeTestApp();
    const tok = aToken();
    t.ingest([tok]);
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
    t.ingest([tok, other]);
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

  it('keeps cursors valid across a restart (the secret is in the store)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cursor-'));
    try {
      const path = join(dir, 'store.db');
      const a = makeTestApp({ store: openStore(path) });
      const tok = aToken();
      a.ingest([tok]);
      a.ingest(Array.from({ length: 3 }, (_, i) => aTrade(tok.address, { blockTime: NOW - i })));
      const cursor = (await a.http.get(`/v1/token/${tok.address}/trades?limit=1`)).body.nextCursor;
      a.close();
      const b = makeTestApp({ store: openStore(path) });
      const res = await b.http.get(`/v1/token/${tok.address}/trades?limit=1&cursor=${cursor}`);
      b.close();
      expect(res.status).toBe(200);
      expect(res.body.trades[0].blockTime).toBe(NOW - 1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
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
    t.ingest([tok]);
    const res = await t.http.get(`/v1/token/${tok.address}/trades?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param });
  });

  it('treats empty parameters as absent and answers an unknown token with 404', async () => {
    t = makeTestApp();
    const tok = aToken();
    t.ingest([tok, aTrade(tok.address)]);
    const res = await t.http.get(`/v1/token/${tok.address}/trades?limit=&cursor=&side=&wallet=`);
    expect(res.status).toBe(200);
    expect(res.body.trades).toHaveLength(1);
    const unknown = await t.http.get(`/v1/token/${anAddress()}/trades`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('token_not_found');
  });

  it('seeks the (token, time, id) indexes backwards for every filter, so deep pages cost what the first does', () => {
    t = makeTestApp();
    const sqls: string[] = [];
    const db = t.store.db;
    const prepare = db.prepare.bind(db);
    (db as { prepare: unknown }).prepare = (sql: string) => {
      sqls.push(sql);
      return prepare(sql);
    };
    createTradesRepo(db);
    (db as { prepare: unknown }).prepare = prepare;
    const pages = sqls.filter((s) => s.includes('ORDER BY t.block_time DESC, t.id DESC'));
    expect(pages).toHaveLength(4);
    for (const sql of pages) {
      const plan = (
        db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all({ tokenId: 1, blockTime: 5, id: 5, after: 0, bound: 9, limit: 10, isBuy: 1, wallet: 'w' }) as {
          detail: string;
        }[]
      )
        .map((r) => r.detail)
        .join(' | ');
      expect(plan).toMatch(
        /SEARCH t USING INDEX trades_token_(time|side_time|wallet_time) \(token_id=\? AND (is_buy=\? AND |wallet=\? AND )?block_time>\? AND block_time<\?\)/,
      );
      expect(plan).not.toMatch(/TEMP B-TREE|SCAN t/);
    }
  });
});

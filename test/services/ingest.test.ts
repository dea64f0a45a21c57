import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aHolder, aMarket, aToken, aTrade, homeMarket, marketOf, withMarket } from '../helpers/builders.js';
import { IngestRejected } from '../../src/services/ingest.js';
import { parseJsonArrayChunked, parseNdjsonChunked, TooManyRecords, NotJsonArray } from '../../src/services/ingest-parse.js';
import { rawSql } from '../helpers/raw-sql.js';

let t: TestApp;
afterEach(() => t?.close());

// Straight from the tables on either engine (test/helpers/raw-sql.ts): await the ingest first.
const count = async (table: string) => (await rawSql<{ n: number }>(t.store, `SELECT count(*) AS n FROM ${table}`))[0]!.n;
const column = async (sql: string) => (await rawSql<{ v: unknown }>(t.store, sql)).map((r) => r.v);
const snapshot = () =>
  Promise.all(['tokens', 'markets', 'trades', 'holders', 'candles'].map((table) => rawSql(t.store, `SELECT * FROM ${table} ORDER BY 1, 2, 3`)));
/** The batch's refusal, whether the helper's ingest throws (SQLite) or answers a rejected promise (PostgreSQL). */
const refusalOf = async (write: () => unknown): Promise<unknown> => {
  try {
    await write();
  } catch (e) {
    return e;
  }
  return undefined;
};

describe('ingest', () => {
  it('stores tokens, markets, holders and trades and counts them as accepted', async () => {
    t = makeTestApp();
    const tok = aToken();
    const r = await t.ingest([tok, homeMarket(tok.address), aHolder(tok.address), aTrade(tok.address), aTrade(tok.address)]);
    expect(r).toEqual({ accepted: 5, duplicates: 0 });
    expect([await count('tokens'), await count('markets'), await count('holders'), await count('trades')]).toEqual([1, 1, 1, 2]);
  });

  it('counts a trade seen before as a duplicate and does not store it twice, also within one batch', async () => {
    t = makeTestApp();
    const tok = aToken();
    const trade = aTrade(tok.address, { signature: 'dupsig', index: 3 });
    await t.ingest([...withMarket(tok), trade]);
    expect(await t.ingest([trade, { ...trade, priceUsd: 99 }])).toEqual({ accepted: 0, duplicates: 2 });
    expect(await t.ingest([aTrade(tok.address, { signature: 'x' }), aTrade(tok.address, { signature: 'x' })])).toEqual({ accepted: 1, duplicates: 1 });
    expect(await count('trades')).toBe(2);
    // same signature, other index: a different trade
    expect((await t.ingest([{ ...trade, index: 4 }])).accepted).toBe(1);
  });

  it('keeps the last price in trade order when older trades arrive later (backfill)', async () => {
    t = makeTestApp();
    const tok = aToken();
    await t.ingest([...withMarket(tok), aTrade(tok.address, { blockTime: 2000, priceUsd: 5 })]);
    await t.ingest([aTrade(tok.address, { blockTime: 1000, priceUsd: 1 })]);
    expect(await rawSql(t.store, 'SELECT price_usd, last_trade_at FROM tokens')).toEqual([{ price_usd: 5, last_trade_at: 2000 }]);
    // same block time: the higher record number (later ingest) is later in trade order
    await t.ingest([aTrade(tok.address, { blockTime: 2000, priceUsd: 7 })]);
    expect(await column('SELECT price_usd AS v FROM tokens')).toEqual([7]);
  });

  it('gives trades monotonic record numbers in ingest order', async () => {
    t = makeTestApp();
    const tok = aToken();
    await t.ingest([...withMarket(tok), aTrade(tok.address, { blockTime: 3 }), aTrade(tok.address, { blockTime: 1 }), aTrade(tok.address, { blockTime: 2 })]);
    await t.ingest([aTrade(tok.address, { blockTime: 0 })]);
    // numbered in the batches' record order, a later batch after an earlier one, whatever the block times
    expect(await column('SELECT block_time AS v FROM trades ORDER BY id')).toEqual([3, 1, 2, 0]);
  });

  it('refuses a batch with any bad record whole, naming each bad line, and writes nothing', async () => {
    t = makeTestApp();
    const tok = aToken();
    await t.ingest([...withMarket(tok), aTrade(tok.address)]);
    const before = await snapshot();
    const other = aToken();
    const err = await refusalOf(() =>
      t.ingest([
        other,
        aTrade(tok.address),
        aTrade(tok.address, { priceUsd: -1 }),
        aTrade(anUnknown(), {}),
        aHolder(tok.address, { owner: 'not an address' }),
        { type: 'bogus' } as never,
      ]),
    );
    expect(err).toBeInstanceOf(IngestRejected);
    const errors = (err as IngestRejected).errors;
    expect(errors.map((e) => e.line)).toEqual([3, 4, 5, 6]);
    expect(errors[0]!.error).toMatch(/priceUsd/);
    expect(errors[1]!.error).toMatch(/unknown token/);
    expect(errors[2]!.error).toMatch(/owner/);
    expect(errors[3]!.error).toMatch(/type/);
    expect(await snapshot()).toEqual(before);
  });

  it('refuses amounts, prices and supplies over 1e100, so sums and market caps stay finite numbers', async () => {
    t = makeTestApp();
    const tok = aToken();
    await t.ingest(withMarket(tok));
    const refusal = async (records: unknown[]) => {
      const e = await refusalOf(() => t.ingest(records as never));
      return e === undefined ? [] : (e as IngestRejected).errors.map((x) => x.error);
    };
    expect(await refusal([aTrade(tok.address, { volumeUsd: 1.7e308 })])).toEqual(['volumeUsd must be at most 1e100']);
    expect(await refusal([aTrade(tok.address, { priceUsd: 1e101 })])).toEqual(['priceUsd must be at most 1e100']);
    expect(await refusal([aToken({ totalSupply: 1e300 })])).toEqual(['totalSupply must be at most 1e100']);
    expect(await refusal([aTrade(tok.address, { volumeUsd: 1e100, priceUsd: 1e100 }), aTrade(tok.address, { volumeUsd: 1e100 })])).toEqual([]);
    expect(await count('trades')).toBe(2);
  });

  it('accepts a token defined earlier in the same batch but not one defined later', async () => {
    t = makeTestApp();
    const a = aToken();
    // Three: the token, its market (a trade must name a known market too) and the trade.
    expect((await t.ingest([...withMarket(a), aTrade(a.address)])).accepted).toBe(3);
    const b = aToken();
    expect(await refusalOf(() => t.ingest([aTrade(b.address), b]))).toBeInstanceOf(IngestRejected);
    expect(await count('tokens')).toBe(1);
  });

  it('refuses a trade whose market is neither stored nor earlier in the batch, naming its line, and writes nothing', async () => {
    t = makeTestApp();
    const tok = aToken();
    await t.ingest([tok]);
    const before = await snapshot();
    const stray = aTrade(tok.address);
    const later = aToken();
    const err = await refusalOf(() => t.ingest([later, homeMarket(tok.address, { dex: 'orca' }), stray, aTrade(later.address), homeMarket(later.address)]));
    expect(err).toBeInstanceOf(IngestRejected);
    // Line 3's market is defined on line 2; line 4's only on line 5, after it.
    expect((err as IngestRejected).errors).toEqual([{ line: 4, error: `unknown market ${marketOf(later.address)}` }]);
    expect(await snapshot()).toEqual(before);
    const alone = await refusalOf(() => t.ingest([stray]));
    expect((alone as IngestRejected).errors).toEqual([{ line: 1, error: `unknown market ${marketOf(tok.address)}` }]);
    expect(await snapshot()).toEqual(before);
  });

  it('accepts a trade whose market is stored or defined earlier in the same batch, and shows its dex', async () => {
    t = makeTestApp();
    const tok = aToken();
    const other = aMarket(tok.address, { dex: 'orca' });
    expect(await t.ingest([tok, homeMarket(tok.address), aTrade(tok.address, { blockTime: 1 })])).toEqual({ accepted: 3, duplicates: 0 });
    expect(await t.ingest([aTrade(tok.address, { blockTime: 2 }), other, aTrade(tok.address, { blockTime: 3, market: other.address })])).toEqual({
      accepted: 3,
      duplicates: 0,
    });
    expect(await rawSql(t.store, 'SELECT t.block_time, m.dex FROM trades t JOIN markets m ON m.address = t.market ORDER BY t.id')).toEqual([
      { block_time: 1, dex: 'raydium' },
      { block_time: 2, dex: 'raydium' },
      { block_time: 3, dex: 'orca' },
    ]);
  });

  it('replaces a holder amount and removes the holder at 0', async () => {
    t = makeTestApp();
    const tok = aToken();
    const h = aHolder(tok.address, { amount: 5 });
    await t.ingest([tok, h]);
    await t.ingest([{ ...h, amount: 9 }]);
    expect(await column('SELECT amount AS v FROM holders')).toEqual([9]);
    await t.ingest([{ ...h, amount: 0 }]);
    expect(await count('holders')).toBe(0);
  });

  it('upserts tokens and markets', async () => {
    t = makeTestApp();
    const tok = aToken({ symbol: 'OLD' });
    const m = aMarket(tok.address, { liquidityUsd: 1 });
    await t.ingest([tok, m]);
    await t.ingest([
      { ...tok, symbol: 'NEW' },
      { ...m, liquidityUsd: 2 },
    ]);
    expect(await column('SELECT symbol AS v FROM tokens')).toEqual(['NEW']);
    expect(await column('SELECT liquidity_usd AS v FROM markets')).toEqual([2]);
  });

  it('lower-cases EVM-style addresses at ingest', async () => {
    t = makeTestApp();
    const evm = '0x' + 'AbCd'.repeat(10);
    await t.ingest([aToken({ address: evm })]);
    expect(await column('SELECT address AS v FROM tokens')).toEqual([evm.toLowerCase()]);
  });

  it('tells listeners which tokens changed, after the commit', async () => {
    t = makeTestApp();
    // On PostgreSQL the app's change bus (LISTEN/NOTIFY) drops every cached answer (tokens 'all')
    // while it is not listening yet; once it is, the listeners hear this instance's commits only.
    await t.app.deps.coord.ready(10_000);
    const seen: unknown[] = [];
    t.store.onChange((c) => seen.push(c.tokens === 'all' ? 'all' : [...c.tokens]));
    const tok = aToken();
    await t.ingest([tok]);
    const id = (await t.services.repos.tokens.byAddress(tok.address))!.id;
    expect(seen).toEqual([[id]]);
  });
});

describe('parseNdjsonChunked', () => {
  it('numbers lines as in the file, skipping blank ones, and reports lines that are not JSON', async () => {
    const { values, errors } = await parseNdjsonChunked('{"a":1}\n\n{oops}\n[1]\n');
    expect(values.map((v) => v.line)).toEqual([1, 4]);
    expect(errors).toEqual([{ line: 3, error: 'not valid JSON' }]);
  });

  it('stops at the first record over the cap, whether or not the rest is JSON', async () => {
    await expect(parseNdjsonChunked('{}\n\n{}\n{}\n', 2)).rejects.toBeInstanceOf(TooManyRecords);
    await expect(parseNdjsonChunked('{}\n{}\nnot json', 2)).rejects.toBeInstanceOf(TooManyRecords);
    expect((await parseNdjsonChunked('{}\n\n\n{}\n', 2)).values).toHaveLength(2);
  });
});

describe('parseJsonArrayChunked', () => {
  it('parses the elements of an array one by one, numbered from 1', async () => {
    const text = ' [ {"a":"x,]}\\"y"} , [1,[2]], 3,"s" ,null ] ';
    const { values } = await parseJsonArrayChunked(text);
    expect(values).toEqual(JSON.parse(text).map((value: unknown, i: number) => ({ line: i + 1, value })));
    expect((await parseJsonArrayChunked('[]')).values).toEqual([]);
    expect((await parseJsonArrayChunked('  ')).values).toEqual([]);
  });

  it.each(['[1,]', '[,1]', '[1 2]', '[{]}', '[1', '[1]x', '{"a":1}', '"s"', '[{"a":1}}]', '[1,,2]'])('refuses %s as not one JSON array', async (text) => {
    await expect(parseJsonArrayChunked(text)).rejects.toBeInstanceOf(NotJsonArray);
  });

  it('stops at the first element over the cap', async () => {
    await expect(parseJsonArrayChunked('[{},{},{}', 2)).rejects.toBeInstanceOf(TooManyRecords);
    expect((await parseJsonArrayChunked('[{},{}]', 2)).values).toHaveLength(2);
  });
});

function anUnknown(): string {
  return aToken().address;
}

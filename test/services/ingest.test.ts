import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aHolder, aMarket, aToken, aTrade } from '../helpers/builders.js';
import { IngestRejected } from '../../src/services/ingest.js';
import { parseJsonArrayChunked, parseNdjsonChunked, TooManyRecords, NotJsonArray } from '../../src/services/ingest-parse.js';

let t: TestApp;
afterEach(() => t?.close());

const count = (table: string) => t.store.db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
const snapshot = () =>
  ['tokens', 'markets', 'trades', 'holders', 'candles'].map((table) => t.store.db.prepare(`SELECT * FROM ${table} ORDER BY 1, 2, 3`).raw().all());

describe('ingest', () => {
  it('stores tokens, markets, holders and trades and counts them as accepted', () => {
    t = makeTestApp();
    const tok = aToken();
    const r = t.ingest([tok, aMarket(tok.address), aHolder(tok.address), aTrade(tok.address), aTrade(tok.address)]);
    expect(r).toEqual({ accepted: 5, duplicates: 0 });
    expect([count('tokens'), count('markets'), count('holders'), count('trades')]).toEqual([1, 1, 1, 2]);
  });

  it('counts a trade seen before as a duplicate and does not store it twice, also within one batch', () => {
    t = makeTestApp();
    const tok = aToken();
    const trade = aTrade(tok.address, { signature: 'dupsig', index: 3 });
    t.ingest([tok, trade]);
    expect(t.ingest([trade, { ...trade, priceUsd: 99 }])).toEqual({ accepted: 0, duplicates: 2 });
    expect(t.ingest([aTrade(tok.address, { signature: 'x' }), aTrade(tok.address, { signature: 'x' })])).toEqual({ accepted: 1, duplicates: 1 });
    expect(count('trades')).toBe(2);
    // same signature, other index: a different trade
    expect(t.ingest([{ ...trade, index: 4 }]).accepted).toBe(1);
  });

  it('keeps the last price in trade order when older trades arrive later (backfill)', () => {
    t = makeTestApp();
    const tok = aToken();
    t.ingest([tok, aTrade(tok.address, { blockTime: 2000, priceUsd: 5 })]);
    t.ingest([aTrade(tok.address, { blockTime: 1000, priceUsd: 1 })]);
    const row = t.store.db.prepare('SELECT price_usd, last_trade_at FROM tokens').get();
    expect(row).toEqual({ price_usd: 5, last_trade_at: 2000 });
    // same block time: the higher record number (later ingest) is later in trade order
    t.ingest([aTrade(tok.address, { blockTime: 2000, priceUsd: 7 })]);
    expect(t.store.db.prepare('SELECT price_usd FROM tokens').pluck().get()).toBe(7);
  });

  it('gives trades monotonic record numbers in ingest order', () => {
    t = makeTestApp();
    const tok = aToken();
    t.ingest([tok, aTrade(tok.address, { blockTime: 3 }), aTrade(tok.address, { blockTime: 1 }), aTrade(tok.address, { blockTime: 2 })]);
    const ids = t.store.db.prepare('SELECT id FROM trades ORDER BY rowid').pluck().all() as number[];
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(t.store.db.prepare('SELECT block_time FROM trades ORDER BY id').pluck().all()).toEqual([3, 1, 2]);
  });

  it('refuses a batch with any bad record whole, naming each bad line, and writes nothing', () => {
    t = makeTestApp();
    const tok = aToken();
    t.ingest([tok, aTrade(tok.address)]);
    const before = snapshot();
    const other = aToken();
    let err: unknown;
    try {
      t.ingest([
        other,
        aTrade(tok.address),
        aTrade(tok.address, { priceUsd: -1 }),
        aTrade(anUnknown(), {}),
        aHolder(tok.address, { owner: 'not an address' }),
        { type: 'bogus' } as never,
      ]);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(IngestRejected);
    const errors = (err as IngestRejected).errors;
    expect(errors.map((e) => e.line)).toEqual([3, 4, 5, 6]);
    expect(errors[0]!.error).toMatch(/priceUsd/);
    expect(errors[1]!.error).toMatch(/unknown token/);
    expect(errors[2]!.error).toMatch(/owner/);
    expect(errors[3]!.error).toMatch(/type/);
    expect(snapshot()).toEqual(before);
  });

  it('refuses amounts, prices and supplies over 1e100, so sums and market caps stay finite numbers', () => {
    t = makeTestApp();
    const tok = aToken();
    t.ingest([tok]);
    const refusal = (records: unknown[]) => {
      try {
        t.ingest(records as never);
      } catch (e) {
        return (e as IngestRejected).errors.map((x) => x.error);
      }
      return [];
    };
    expect(refusal([aTrade(tok.address, { volumeUsd: 1.7e308 })])).toEqual(['volumeUsd must be at most 1e100']);
    expect(refusal([aTrade(tok.address, { priceUsd: 1e101 })])).toEqual(['priceUsd must be at most 1e100']);
    expect(refusal([aToken({ totalSupply: 1e300 })])).toEqual(['totalSupply must be at most 1e100']);
    expect(refusal([aTrade(tok.address, { volumeUsd: 1e100, priceUsd: 1e100 }), aTrade(tok.address, { volumeUsd: 1e100 })])).toEqual([]);
    expect(count('trades')).toBe(2);
  });

  it('accepts a token defined earlier in the same batch but not one defined later', () => {
    t = makeTestApp();
    const a = aToken();
    expect(t.ingest([a, aTrade(a.address)]).accepted).toBe(2);
    const b = aToken();
    expect(() => t.ingest([aTrade(b.address), b])).toThrow(IngestRejected);
    expect(count('tokens')).toBe(1);
  });

  it('replaces a holder amount and removes the holder at 0', () => {
    t = makeTestApp();
    const tok = aToken();
    const h = aHolder(tok.address, { amount: 5 });
    t.ingest([tok, h]);
    t.ingest([{ ...h, amount: 9 }]);
    expect(t.store.db.prepare('SELECT amount FROM holders').pluck().all()).toEqual([9]);
    t.ingest([{ ...h, amount: 0 }]);
    expect(count('holders')).toBe(0);
  });

  it('upserts tokens and markets', () => {
    t = makeTestApp();
    const tok = aToken({ symbol: 'OLD' });
    const m = aMarket(tok.address, { liquidityUsd: 1 });
    t.ingest([tok, m]);
    t.ingest([
      { ...tok, symbol: 'NEW' },
      { ...m, liquidityUsd: 2 },
    ]);
    expect(t.store.db.prepare('SELECT symbol FROM tokens').pluck().all()).toEqual(['NEW']);
    expect(t.store.db.prepare('SELECT liquidity_usd FROM markets').pluck().all()).toEqual([2]);
  });

  it('lower-cases EVM-style addresses at ingest', () => {
    t = makeTestApp();
    const evm = '0x' + 'AbCd'.repeat(10);
    t.ingest([aToken({ address: evm })]);
    expect(t.store.db.prepare('SELECT address FROM tokens').pluck().get()).toBe(evm.toLowerCase());
  });

  it('tells listeners which tokens changed, after the commit', () => {
    t = makeTestApp();
    const seen: unknown[] = [];
    t.store.onChange((c) => seen.push(c.tokens === 'all' ? 'all' : [...c.tokens]));
    const tok = aToken();
    t.ingest([tok]);
    expect(seen).toHaveLength(1);
    expect((seen[0] as number[]).length).toBe(1);
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

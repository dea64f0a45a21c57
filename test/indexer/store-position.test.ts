/**
 * The indexer's position and state (src/store/sqlite/indexer-repo.ts and its PostgreSQL twin) commit in
 * the ingest's own transaction (the `within` of a write): together with the batch's records, or
 * not at all. Runs on both engines (makeTestApp).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import type { NumberedRecord } from '../../src/services/ingest.js';
import { parseRecord } from '../../src/domain/records.js';
import type { IndexerCommit } from '../../src/store/sqlite/indexer-repo.js';

const TOKEN = '0x00000000000000000000000000000000000000aa';
const MARKET = '0x00000000000000000000000000000000000000bb';
const WALLET = '0x00000000000000000000000000000000000000cc';

function records(n: number, tx: string): NumberedRecord[] {
  const values: unknown[] = [
    { type: 'token', address: TOKEN, symbol: 'AA', name: 'Aa', decimals: 18, createdAt: 1_700_000_000 },
    ...Array.from({ length: n }, (_, i) => ({
      type: 'trade',
      token: TOKEN,
      market: MARKET,
      signature: tx,
      index: i,
      blockTime: 1_700_000_100 + i,
      side: 'buy',
      priceUsd: 1.5,
      amount: 2,
      quoteAmount: 3,
      volumeUsd: 3,
      wallet: WALLET,
    })),
  ];
  return values.map((value, i) => {
    const p = parseRecord(value);
    if (!p.ok) throw new Error(p.error);
    return { line: i + 1, record: p.record };
  });
}

const block = (n: number) => ({ number: n, hash: `0x${n.toString(16).padStart(64, '0')}`, parentHash: `0x${(n - 1).toString(16).padStart(64, '0')}` });

describe('indexer position in the ingest transaction', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = makeTestApp({ env: { CHAIN: 'devnet' } });
    // On PostgreSQL the test database is made in the background: the ingest must wait for it.
    await t.settled();
  });
  afterEach(async () => {
    await t.close();
  });

  const commitOf = (c: Partial<IndexerCommit>): IndexerCommit => ({ chain: 'devnet', blocks: [], keepFrom: 0, state: [], now: 1_700_000_200, ...c });
  const count = async () => Number((await t.sql<{ n: number }>('SELECT count(*) AS n FROM trades'))[0]!.n);

  it('commits the records, the position, the kept blocks and the state together', async () => {
    const { indexer } = t.services.repos;
    expect(await indexer.position('devnet')).toBeUndefined();
    const result = await t.services.ingest.writeSliced(records(3, '0x01'), {
      within: (tx) => indexer.commit(tx, commitOf({ blocks: [block(9), block(10)], keepFrom: 10, state: [{ kind: 'pool', key: MARKET, body: '{"a":1}' }] })),
    });
    expect(result).toEqual({ accepted: 4, duplicates: 0 });
    expect(await count()).toBe(3);
    expect(await indexer.position('devnet')).toEqual(block(10));
    expect(await indexer.blocks('devnet')).toEqual([block(10)]);
    expect(await indexer.state('devnet', 'pool')).toEqual(new Map([[MARKET, '{"a":1}']]));

    // A later batch moves the position, replaces and deletes state, and forgets old blocks.
    await t.services.ingest.writeSliced([], {
      within: (tx) =>
        indexer.commit(
          tx,
          commitOf({
            blocks: [block(11), block(12)],
            keepFrom: 11,
            state: [
              { kind: 'pool', key: MARKET, body: '{"a":2}' },
              { kind: 'balance', key: `${TOKEN}/${WALLET}`, body: '12345678901234567890123' },
            ],
          }),
        ),
    });
    expect(await indexer.position('devnet')).toEqual(block(12));
    expect(await indexer.blocks('devnet')).toEqual([block(11), block(12)]);
    expect(await indexer.state('devnet', 'pool')).toEqual(new Map([[MARKET, '{"a":2}']]));
    await t.services.ingest.writeSliced([], {
      within: (tx) => indexer.commit(tx, commitOf({ blocks: [block(13)], keepFrom: 11, state: [{ kind: 'balance', key: `${TOKEN}/${WALLET}`, body: null }] })),
    });
    expect(await indexer.state('devnet', 'balance')).toEqual(new Map());
    expect((await indexer.blocks('devnet')).map((b) => b.number)).toEqual([11, 12, 13]);
    expect(await indexer.position('otherchain')).toBeUndefined();
  });

  it('writes nothing of a batch whose position fails to commit, and nothing of a position whose batch fails', async () => {
    const { indexer } = t.services.repos;
    await expect(
      t.services.ingest.writeSliced(records(2, '0x02'), {
        // As a SQLite write must, this answers no promise there (PostgreSQL's commit is one).
        within: (tx) => {
          const died = () => {
            throw new Error('the process died here');
          };
          const done = indexer.commit(tx, commitOf({ blocks: [block(5)] }));
          return done instanceof Promise ? done.then(died) : died();
        },
      }),
    ).rejects.toThrow('the process died here');
    expect(await count()).toBe(0);
    expect(await indexer.position('devnet')).toBeUndefined();
  });

  it('writes the position of a batch larger than one slice once, in its transaction', async () => {
    const { indexer } = t.services.repos;
    let calls = 0;
    const r = await t.services.ingest.writeSliced(records(1200, '0x03'), {
      within: (tx) => {
        calls++;
        return indexer.commit(tx, commitOf({ blocks: [block(20)] }));
      },
    });
    expect(r.accepted).toBe(1201);
    expect(calls).toBe(1);
    expect(await count()).toBe(1200);
    expect((await indexer.position('devnet'))?.number).toBe(20);
  });
});

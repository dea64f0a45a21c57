/**
 * The indexer's undo journal (src/store/sqlite/indexer-repo.ts and its PostgreSQL twin, migrations
 * 016 / 011): a journaled commit keeps each changed state row's body from before the batch and
 * what the batch added, pruned with the kept blocks; a rollback puts the position, the blocks, the
 * journal and the state back to a block, in the transaction it is handed. Both engines (makeTestApp).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import type { IndexerCommit } from '../../src/store/sqlite/indexer-repo.js';

const POOL = '0x00000000000000000000000000000000000000bb';
const HOLDER = '0x00000000000000000000000000000000000000aa/0x00000000000000000000000000000000000000cc';

const block = (n: number) => ({ number: n, hash: `0x${n.toString(16).padStart(64, '0')}`, parentHash: `0x${(n - 1).toString(16).padStart(64, '0')}` });

describe('the undo journal of the indexer', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = makeTestApp({ env: { CHAIN: 'devnet' } });
    await t.settled();
  });
  afterEach(async () => {
    await t.close();
  });

  const commit = (c: Partial<IndexerCommit> & { blocks: IndexerCommit['blocks'] }) =>
    t.services.ingest.writeSliced([], {
      within: (tx) => t.services.repos.indexer.commit(tx, { chain: 'devnet', keepFrom: 0, state: [], now: 1_700_000_000, ...c }),
    });

  it('keeps the bodies before each journaled batch and what it added; a rollback puts them back', async () => {
    const repo = t.services.repos.indexer;
    await commit({ blocks: [block(1)], state: [{ kind: 'pool', key: POOL, body: 'a' }] });
    await commit({
      blocks: [block(2)],
      state: [
        { kind: 'pool', key: POOL, body: 'b' },
        { kind: 'token', key: 'tok', body: 't' },
      ],
      journal: { first: 2, last: 2, added: [{ what: 'trade', key: '0x02:0' }] },
    });
    await commit({
      blocks: [block(3)],
      state: [
        { kind: 'pool', key: POOL, body: 'c' },
        { kind: 'balance', key: HOLDER, body: '5@100' },
      ],
      journal: {
        first: 3,
        last: 3,
        added: [
          { what: 'trade', key: '0x03:1' },
          { what: 'market', key: POOL },
        ],
      },
    });
    expect(await repo.batches('devnet')).toEqual([
      { first: 2, last: 2 },
      { first: 3, last: 3 },
    ]);
    const sorted = (j: { undo: { kind: string; key: string; body: string | null }[] }) =>
      [...j.undo].sort((x, y) => `${x.kind}${x.key}`.localeCompare(`${y.kind}${y.key}`));
    const from2 = await repo.journal('devnet', 2);
    expect(sorted(from2)).toEqual([
      { kind: 'balance', key: HOLDER, body: null },
      { kind: 'pool', key: POOL, body: 'a' },
      { kind: 'token', key: 'tok', body: null },
    ]);
    expect(from2.added).toEqual([
      { what: 'trade', key: '0x02:0' },
      { what: 'market', key: POOL },
      { what: 'trade', key: '0x03:1' },
    ]);
    const from3 = await repo.journal('devnet', 3);
    expect([sorted(from3), from3.added]).toEqual([
      [
        { kind: 'balance', key: HOLDER, body: null },
        { kind: 'pool', key: POOL, body: 'b' },
      ],
      [
        { what: 'market', key: POOL },
        { what: 'trade', key: '0x03:1' },
      ],
    ]);

    // Back to block 2: block 3's rows, journal and state go.
    await t.services.ingest.writeSliced([], {
      within: (tx) => repo.rollback(tx, { chain: 'devnet', to: { number: 2, hash: block(2).hash }, restore: from3.undo, now: 1_700_000_100 }),
    });
    expect(await repo.position('devnet')).toEqual(block(2));
    expect((await repo.blocks('devnet')).map((b) => b.number)).toEqual([1, 2]);
    expect(await repo.batches('devnet')).toEqual([{ first: 2, last: 2 }]);
    expect([await repo.state('devnet', 'pool'), await repo.state('devnet', 'balance'), await repo.state('devnet', 'token')]).toEqual([
      new Map([[POOL, 'b']]),
      new Map(),
      new Map([['tok', 't']]),
    ]);
    expect((await repo.journal('devnet', 0)).added).toEqual([{ what: 'trade', key: '0x02:0' }]);
  });

  it('prunes the journal of a batch once none of its blocks is kept', async () => {
    const repo = t.services.repos.indexer;
    await commit({ blocks: [block(1), block(2)], state: [{ kind: 'pool', key: POOL, body: 'a' }], journal: { first: 1, last: 2, added: [] } });
    await commit({ blocks: [block(3)], keepFrom: 2, state: [{ kind: 'pool', key: POOL, body: 'b' }], journal: { first: 3, last: 3, added: [] } });
    // Block 2 is still kept: the batch of blocks 1-2 stays.
    expect(await repo.batches('devnet')).toEqual([
      { first: 1, last: 2 },
      { first: 3, last: 3 },
    ]);
    await commit({ blocks: [block(4)], keepFrom: 3, state: [{ kind: 'pool', key: POOL, body: 'c' }], journal: { first: 4, last: 4, added: [] } });
    expect(await repo.batches('devnet')).toEqual([
      { first: 3, last: 3 },
      { first: 4, last: 4 },
    ]);
    // The body before block 3's batch, the oldest journaled now.
    expect((await repo.journal('devnet', 0)).undo).toEqual([{ kind: 'pool', key: POOL, body: 'a' }]);
    // An unjournaled batch (far from the head) prunes too.
    await commit({ blocks: [block(5), block(6)], keepFrom: 6, state: [] });
    expect([await repo.batches('devnet'), (await repo.journal('devnet', 0)).undo]).toEqual([[], []]);
  });
});

/** Port contract: the chain indexer's repo, its commit written in an ingest transaction through the services. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { D, openPortStore, type PortStore } from './fixture.js';

let t: PortStore;
beforeAll(async () => {
  t = await openPortStore([]);
});
afterAll(async () => {
  await t.close();
});

describe('indexer', () => {
  it('a commit moves the position, keeps blocks and state, and journals the batch', async () => {
    const chain = 'port-chain';
    expect(await t.repos.indexer.position(chain)).toBeUndefined();
    await t.services.ingest.writeSliced([], {
      within: (tx) =>
        t.repos.indexer.commit(tx, {
          chain,
          blocks: [
            { number: 1, hash: 'h1', parentHash: 'h0' },
            { number: 2, hash: 'h2', parentHash: 'h1' },
          ],
          keepFrom: 1,
          state: [{ kind: 'pool', key: 'p1', body: 'one' }],
          now: D,
          journal: { first: 1, last: 2, added: [{ what: 'trade', key: 'sig:0' }] },
        }),
    });
    expect(await t.repos.indexer.position(chain)).toEqual({ number: 2, hash: 'h2', parentHash: 'h1' });
    expect(await t.repos.indexer.blocks(chain)).toEqual([
      { number: 1, hash: 'h1', parentHash: 'h0' },
      { number: 2, hash: 'h2', parentHash: 'h1' },
    ]);
    expect(Object.fromEntries(await t.repos.indexer.state(chain, 'pool'))).toEqual({ p1: 'one' });
    expect(await t.repos.indexer.batches(chain)).toEqual([{ first: 1, last: 2 }]);
    expect(await t.repos.indexer.journal(chain, 1)).toEqual({ undo: [{ kind: 'pool', key: 'p1', body: null }], added: [{ what: 'trade', key: 'sig:0' }] });
    expect(await t.repos.indexer.journal(chain, 3)).toEqual({ undo: [], added: [] });
    expect(await t.repos.indexer.position('other-chain')).toBeUndefined();
  });

  it("a rollback in a retraction's transaction goes back before the batch: its blocks, journal and state changes go", async () => {
    const chain = 'port-chain';
    await t.services.ingest.retract(
      { trades: [], markets: [], tokens: [], records: [] },
      {
        within: (tx) => t.repos.indexer.rollback(tx, { chain, to: { number: 0, hash: 'h0' }, restore: [{ kind: 'pool', key: 'p1', body: null }], now: D + 1 }),
      },
    );
    // Block 0 was never kept: the position knows no parent for it.
    expect(await t.repos.indexer.position(chain)).toEqual({ number: 0, hash: 'h0', parentHash: '' });
    expect(await t.repos.indexer.blocks(chain)).toEqual([]);
    expect(Object.fromEntries(await t.repos.indexer.state(chain, 'pool'))).toEqual({});
    expect(await t.repos.indexer.batches(chain)).toEqual([]);
    expect(await t.repos.indexer.journal(chain, 1)).toEqual({ undo: [], added: [] });
  });
});

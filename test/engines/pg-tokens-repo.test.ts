/**
 * Token reads and the token change log on PostgreSQL answer as on SQLite for the same random
 * calls on the same store (the change log as the ingest wrote it, several entries per token).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createTokensRepo, type TokensRepo } from '../../src/store/sqlite/tokens-repo.js';
import { createTokenChangesRepo, discoveryHook } from '../../src/store/sqlite/token-changes-repo.js';
import { asyncRepo, type Async } from '../../src/store/port/async.js';
import { createPgTokensRepo } from '../../src/store/pg/tokens-repo.js';
import { createPgTokenChangesRepo, pgTokenChangesWriter, type PgTokenChangesRepo } from '../../src/store/pg/token-changes-repo.js';
import { inWriteOrder } from '../../src/store/pg/write-order.js';
import { marketFixture, type MarketFixture } from './market-fixture.js';
import { sameAnswers, type Call } from './twins.js';

describe('token reads on PostgreSQL', () => {
  let f: MarketFixture;
  beforeAll(async () => {
    f = await marketFixture('tokens');
  });
  afterAll(async () => {
    await f?.close();
  });

  it('answers byAddress and byId as the SQLite repo does', async () => {
    const address = fc.oneof(fc.constantFrom(...f.tokens.map((t) => t.address)), fc.constant('unknown'), fc.constant(f.tokens[0]!.address.toLowerCase()));
    const id = fc.integer({ min: 0, max: f.tokens.length + 2 });
    const call: fc.Arbitrary<Call<Async<TokensRepo>>> = fc.oneof(
      address.map((a) => ({ label: `byAddress(${a})`, run: (r: Async<TokensRepo>) => r.byAddress(a) })),
      id.map((i) => ({ label: `byId(${i})`, run: (r: Async<TokensRepo>) => r.byId(i) })),
    );
    const lite = asyncRepo(createTokensRepo(f.store.db));
    const pg = createPgTokensRepo(f.engines.pool);
    await fc.assert(
      fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 20 }), (cs) => sameAnswers(lite, pg, cs).then(() => undefined)),
      { numRuns: 50 },
    );
    expect(await pg.byId(f.tokens[3]!.id)).toMatchObject({ address: f.tokens[3]!.address });
  });

  it('answers the change log as the SQLite repo does, in the same order', async () => {
    const lite = asyncRepo(createTokenChangesRepo(f.store.db));
    const pg = createPgTokenChangesRepo(f.engines.pool);
    const { first, last } = await lite.bounds();
    expect(first).toBe(1);
    expect(last).toBeGreaterThan(f.tokens.length);
    const seq = fc.integer({ min: 0, max: last + 2 });
    const call: fc.Arbitrary<Call<PgTokenChangesRepo>> = fc.oneof(
      fc.constant({ label: 'bounds()', run: (r: PgTokenChangesRepo) => r.bounds() }),
      fc.constant({ label: 'last()', run: (r: PgTokenChangesRepo) => r.last() }),
      fc.tuple(seq, seq).map(([a, b]) => ({ label: `since(${a}, ${b})`, run: (r: PgTokenChangesRepo) => r.since(a, b) })),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 20 }), (cs) => sameAnswers(lite, pg, cs).then(() => undefined)),
      { numRuns: 50 },
    );
    expect(await pg.since(0, last)).toHaveLength(f.tokens.length);
  });

  it('appends to the change log as the SQLite discovery hook does, entry for entry', async () => {
    const hook = discoveryHook(f.store.db);
    const write = pgTokenChangesWriter();
    const log = async () => ({
      lite: f.store.db.prepare('SELECT seq, token_id FROM token_changes ORDER BY seq').raw().all(),
      pg: (await f.engines.pool.query({ text: 'SELECT seq, token_id FROM token_changes ORDER BY seq', rowMode: 'array' })).rows,
    });
    const batch = fc.uniqueArray(fc.constantFrom(...f.tokens.map((t) => t.id)), { maxLength: 6 });
    await fc.assert(
      fc.asyncProperty(fc.array(batch, { minLength: 1, maxLength: 5 }), async (batches) => {
        for (const ids of batches) {
          const touched = new Set(ids);
          hook({ trades: [], touchedTokens: touched, now: 0, first: true });
          await inWriteOrder(f.engines.pool, (client) => write(client, touched));
        }
        const { lite, pg } = await log();
        expect(pg).toEqual(lite);
      }),
      { numRuns: 30 },
    );
    const { lite } = await log();
    expect(lite.length).toBeGreaterThan(f.tokens.length + 30);
  });

  it('answers 0 and empty on an empty log, as SQLite does', async () => {
    const store = f.engines.sqlite();
    try {
      await f.engines.truncate(['token_changes']);
      await sameAnswers(asyncRepo(createTokenChangesRepo(store.db)), createPgTokenChangesRepo(f.engines.pool), [
        { label: 'bounds()', run: (r) => r.bounds() },
        { label: 'last()', run: (r) => r.last() },
        { label: 'since(0, 10)', run: (r) => r.since(0, 10) },
      ]);
    } finally {
      store.close();
    }
  });
});

/**
 * The retraction as a store operation (docs/indexer.md, Reorgs: what a retraction removes): the
 * removal log it writes, record numbers it never lets the ingest hand out again, the refusal of
 * bad records with nothing written, its one transaction (a failing `within` rolls everything
 * back), and what its hooks see. On SQLite and, with STORE=postgres, on PostgreSQL.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aHolder, aMarket, aToken, aTrade, anAddress } from '../helpers/builders.js';
import { IngestRejected } from '../../src/services/ingest-validator.js';
import type { RetractBatch, Retraction } from '../../src/store/port/retract.js';
import type { IngestRecord, TradeRecord } from '../../src/domain/records.js';

const NOW = 1_700_000_000;
const none: Omit<Retraction, 'trades'> = { markets: [], tokens: [], records: [] };

describe('the retraction in the store', () => {
  let t: TestApp;
  afterEach(async () => t?.close());

  async function setUp(n: number) {
    t = makeTestApp();
    const token = aToken({ symbol: 'RET' });
    const market = aMarket(token.address);
    const trades = Array.from({ length: n }, (_, i) => aTrade(token.address, { market: market.address, blockTime: NOW - 100 + i, priceUsd: 1 + i }));
    await t.ingest([token, market, ...trades]);
    await t.settled();
    return { token, market, trades };
  }
  const keys = (list: readonly TradeRecord[]) => list.map((x) => ({ signature: x.signature, index: x.index }));
  const ids = async (token: string) => ((await t.http.get(`/v1/token/${token}/trades`)).body as { trades: { id: number; signature: string }[] }).trades;
  const count = async (table: string) => Number((await t.sql<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))[0]!.n);

  it('logs each removed trade in the removal log, in removal order, readable after any entry', async () => {
    const { token, trades } = await setUp(4);
    const before = await ids(token.address);
    const idOf = (sig: string) => before.find((x) => x.signature === sig)!.id;
    expect(await t.services.repos.removals.lastRemovalSeq()).toBe(0);
    await t.services.ingest.retract({ trades: keys([trades[2]!, trades[0]!]), ...none });
    await t.services.ingest.retract({ trades: keys([trades[3]!]), ...none });
    const tokenId = Number((await t.sql<{ id: number }>('SELECT id FROM tokens WHERE address = ?', token.address))[0]!.id);
    const log = await t.services.repos.removals.removalsAfter(0, 10);
    expect(log.map(({ tradeId, tokenId: id, signature, index }) => ({ tradeId, tokenId: id, signature, index }))).toEqual(
      [trades[0]!, trades[2]!, trades[3]!].map((x) => ({ tradeId: idOf(x.signature), tokenId, signature: x.signature, index: x.index })),
    );
    expect(log[1]!.seq).toBeGreaterThan(log[0]!.seq);
    expect(log[2]!.seq).toBeGreaterThan(log[1]!.seq);
    expect(await t.services.repos.removals.lastRemovalSeq()).toBe(log[2]!.seq);
    expect((await t.services.repos.removals.removalsAfter(log[0]!.seq, 1)).map((e) => e.signature)).toEqual([trades[2]!.signature]);
    expect(await t.services.repos.removals.removalsAfter(log[2]!.seq, 10)).toEqual([]);
  });

  it('never hands out a removed record number again, even when the newest trades were removed', async () => {
    const { token, market, trades } = await setUp(3);
    const first = await ids(token.address);
    const highest = Math.max(...first.map((x) => x.id));
    expect(await t.services.ingest.retract({ trades: keys(trades.slice(1)), ...none })).toEqual({ removed: 2, tokens: [token.address] });
    const next = aTrade(token.address, { market: market.address, blockTime: NOW - 1 });
    await t.ingest([next]);
    await t.settled();
    const after = await ids(token.address);
    expect(after.map((x) => x.signature)).toEqual([next.signature, trades[0]!.signature]);
    expect(after[0]!.id).toBe(highest + 1);
    // Removed again, then another: still above every number ever handed out.
    await t.services.ingest.retract({ trades: keys([next]), ...none });
    const again = aTrade(token.address, { market: market.address, blockTime: NOW });
    await t.ingest([again]);
    await t.settled();
    expect((await ids(token.address))[0]).toMatchObject({ signature: again.signature, id: highest + 2 });
  });

  it('refuses bad records naming each, and writes nothing', async () => {
    const { token, trades } = await setUp(2);
    const fresh = aToken();
    const bad: Retraction = {
      trades: keys(trades),
      markets: [],
      tokens: [token.address],
      records: [
        aHolder(token.address),
        aTrade(token.address) as IngestRecord,
        aHolder(fresh.address),
        { type: 'holder', token: token.address, owner: 'x', amount: 1, updatedAt: 1 } as IngestRecord,
      ],
    };
    const err = await t.services.ingest.retract(bad).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(IngestRejected);
    expect((err as IngestRejected).errors).toEqual([
      { line: 1, error: `token ${token.address} is deleted by this retraction` },
      { line: 2, error: 'a retraction writes back no trades' },
      { line: 3, error: `unknown token ${fresh.address}` },
      { line: 4, error: `token ${token.address} is deleted by this retraction` },
    ]);
    expect(await count('trades')).toBe(2);
    expect(await count('removal_log')).toBe(0);
    expect((await t.http.get(`/v1/token/${token.address}/overview`)).status).toBe(200);
  });

  it('is one transaction: a failing within rolls the removal, the records and the hooks back', async () => {
    const { token, trades } = await setUp(3);
    const owner = anAddress('own');
    await t.ingest([aHolder(token.address, { owner, amount: 5 })]);
    await t.settled();
    const overview = (await t.http.get(`/v1/token/${token.address}/overview`)).body as { priceUsd: number; holders: number };
    expect(overview.priceUsd).toBe(3);
    const seen: string[] = [];
    t.services.ingest.addRetractHook(() => void seen.push('hook'));
    const failing = t.services.ingest.retract(
      { trades: keys([trades[2]!]), markets: [], tokens: [], records: [aHolder(token.address, { owner, amount: 0 })] },
      {
        within: () => {
          seen.push('within');
          throw new Error('position write failed');
        },
      },
    );
    await expect(failing).rejects.toThrow('position write failed');
    expect(seen).toEqual(['hook', 'within']);
    expect(await count('trades')).toBe(3);
    expect(await count('removal_log')).toBe(0);
    expect(await count('holders')).toBe(1);
    expect((await t.http.get(`/v1/token/${token.address}/overview`)).body).toMatchObject({ priceUsd: 3, holders: 1 });
    // The same retraction then goes through whole.
    await t.services.ingest.retract({ trades: keys([trades[2]!]), markets: [], tokens: [], records: [aHolder(token.address, { owner, amount: 0 })] });
    expect((await t.http.get(`/v1/token/${token.address}/overview`)).body).toMatchObject({ priceUsd: 2, holders: 0 });
  });

  it('hands its hooks the removed trades, the touched and the deleted tokens, inside the transaction', async () => {
    const { token, market, trades } = await setUp(2);
    const other = aToken({ symbol: 'NEW' });
    const otherTrade = aTrade(other.address, { market: market.address, blockTime: NOW - 2 });
    await t.ingest([other, otherTrade]);
    await t.settled();
    const tokenId = Number((await t.sql<{ id: number }>('SELECT id FROM tokens WHERE address = ?', token.address))[0]!.id);
    const otherId = Number((await t.sql<{ id: number }>('SELECT id FROM tokens WHERE address = ?', other.address))[0]!.id);
    const batches: RetractBatch[] = [];
    t.services.ingest.addRetractHook((b) => void batches.push(b));
    const result = await t.services.ingest.retract({ trades: keys([trades[1]!]), markets: [], tokens: [other.address], records: [] });
    expect(result).toEqual({ removed: 2, tokens: [token.address, other.address].sort() });
    expect(batches).toHaveLength(1);
    const b = batches[0]!;
    // In record number order: the trade of the first batch, then the deleted token's.
    expect(b.trades.map((x) => [x.signature, x.tokenId, x.token, x.market, x.blockTime, x.wallet])).toEqual(
      [trades[1]!, otherTrade].map((x) => [x.signature, x.token === token.address ? tokenId : otherId, x.token, x.market, x.blockTime, x.wallet]),
    );
    expect([...b.touchedTokens].sort()).toEqual([tokenId, otherId].sort());
    expect(b.deletedTokens).toEqual([other.address]);
    expect((await t.http.get(`/v1/token/${other.address}/overview`)).status).toBe(404);
    expect(await count('removal_log')).toBe(2);
  });
});

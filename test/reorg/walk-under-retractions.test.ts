/**
 * Trades walks while retractions happen (docs/indexer.md, Reorgs: what a retraction removes): a
 * walk never yields a trade after its removal, never repeats one, and never skips one that
 * existed when it began and still exists, in trade order, whatever is removed (pages already
 * read or not yet) or ingested between its pages. On SQLite and, with STORE=postgres, PostgreSQL.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { makeTestApp } from '../helpers/make-test-app.js';
import { aMarket, aToken, aTrade } from '../helpers/builders.js';
import { testEngine } from '../helpers/pg-test-store.js';
import type { TradeRecord } from '../../src/domain/records.js';

const NOW = 1_700_000_000;
type Between = { remove: number[]; add: number[] };

describe('a trades walk under retractions', () => {
  it('yields every surviving trade of its start once, in order, and no removed one after its removal', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 25 }),
        fc.integer({ min: 1, max: 4 }),
        // Between pages: trades to remove (indexes into every trade ingested so far) and new ones (block time offsets).
        fc.array(fc.record({ remove: fc.array(fc.nat(), { maxLength: 4 }), add: fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 2 }) }), {
          maxLength: 8,
        }),
        async (times, limit, between: Between[]) => {
          const t = makeTestApp();
          try {
            const token = aToken();
            const market = aMarket(token.address);
            const all: TradeRecord[] = times.map((dt) => aTrade(token.address, { market: market.address, blockTime: NOW - dt }));
            await t.ingest([token, market, ...all]);
            await t.settled();
            const atStart = new Set(all.map((x) => x.signature));
            const removed = new Set<string>();
            const yielded: { signature: string; blockTime: number; id: number }[] = [];
            let cursor: string | null = null;
            for (let page = 0; ; page++) {
              const res = await t.http.get(`/v1/token/${token.address}/trades?limit=${limit}${cursor === null ? '' : `&cursor=${cursor}`}`);
              expect(res.status).toBe(200);
              const body = res.body as { trades: { signature: string; blockTime: number; id: number }[]; nextCursor: string | null };
              for (const tr of body.trades) expect(removed.has(tr.signature), `${tr.signature} yielded after its removal`).toBe(false);
              yielded.push(...body.trades);
              if (body.nextCursor === null) break;
              cursor = body.nextCursor;
              const step = between[page];
              if (step === undefined) continue;
              const gone = [...new Set(step.remove.map((i) => all[i % all.length]!))].filter((x) => !removed.has(x.signature));
              if (gone.length > 0) {
                await t.services.ingest.retract({
                  trades: gone.map((x) => ({ signature: x.signature, index: x.index })),
                  markets: [],
                  tokens: [],
                  records: [],
                });
                for (const x of gone) removed.add(x.signature);
              }
              const added = step.add.map((dt) => aTrade(token.address, { market: market.address, blockTime: NOW - dt }));
              if (added.length > 0) {
                await t.ingest(added);
                await t.settled();
                all.push(...added);
              }
            }
            const sigs = yielded.map((x) => x.signature);
            expect(new Set(sigs).size).toBe(sigs.length);
            for (let i = 1; i < yielded.length; i++) {
              const [a, b] = [yielded[i - 1]!, yielded[i]!];
              expect(a.blockTime > b.blockTime || (a.blockTime === b.blockTime && a.id > b.id)).toBe(true);
            }
            const survivors = [...atStart].filter((s) => !removed.has(s)).sort();
            expect(sigs.filter((s) => atStart.has(s) && !removed.has(s)).sort()).toEqual(survivors);
            // Nothing ingested during the walk appears in it.
            expect(sigs.every((s) => atStart.has(s))).toBe(true);
          } finally {
            await t.close();
          }
        },
      ),
      { numRuns: testEngine() === 'postgres' ? 10 : 40 },
    );
  }, 300_000);
});

/**
 * Property tests of the stream against the store and a naive reference: a client following bars
 * of several resolutions while random batches (some backfilled) are ingested ends with bars equal
 * to /udf/history and to candles built straight from the trades; a client that drops its
 * connection at random points and resumes with since / sinceId ends with exactly the store's bars
 * and trades, nothing missing or repeated.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { startLive } from './support.js';
import { ChartClient, history } from './chart-client.js';
import { addToken, refBars, type RefBar, type RefTrade } from '../udf/support.js';
import { aTrade } from '../helpers/builders.js';

const T0 = 1_700_000_000;
const RESOLUTIONS = ['1S', '5', '15', '240', '1D', '1W', '1M'] as const;

type Row = { dt: number; price: number; volume: number };
const row = (minDt: number) =>
  fc.record({ dt: fc.integer({ min: minDt, max: 4000 }), price: fc.integer({ min: 1, max: 500 }), volume: fc.integer({ min: 1, max: 100 }) });

let resetsSeen = 0;

const same = (a: RefBar[], b: RefBar[]) => expect(a).toEqual(b);

async function run(batches: Row[][], drops: boolean[] | null): Promise<void> {
  const live = await startLive();
  try {
    const token = addToken(live, { symbol: 'PROP' }).address;
    const client = new ChartClient(live, token, RESOLUTIONS);
    await client.connect();
    const ref: RefTrade[] = [];
    let cursor = T0;
    for (const [i, batch] of batches.entries()) {
      if (drops !== null && drops[i] === true) {
        if (client.connected) await client.drop();
        else await client.connect();
      }
      cursor += 600;
      const trades = batch.map((r) => {
        // Forward only (resume runs): each trade at or after the one before it.
        const blockTime = drops === null ? cursor + r.dt : (cursor += r.dt);
        return aTrade(token, { blockTime, priceUsd: r.price / 100, volumeUsd: r.volume });
      });
      live.ingest(trades);
      for (const t of trades) ref.push({ time: t.blockTime, seq: ref.length, price: t.priceUsd, volume: t.volumeUsd });
      await client.sync();
    }
    if (!client.connected) await client.connect();
    await client.sync();
    for (const r of RESOLUTIONS) {
      const expected = refBars(r, ref);
      same(await history(live, token, r), expected);
      same(client.sorted(r), expected);
    }
    const ids = live.store.db.prepare('SELECT id FROM trades ORDER BY id').pluck().all() as number[];
    expect([...client.trades.keys()].sort((a, b) => a - b)).toEqual(ids);
    expect([...client.trades.values()].every((n) => n === 1)).toBe(true);
    resetsSeen += client.resets;
    client.close();
  } finally {
    await live.stop();
  }
}

describe('stream bars and trades against the store', () => {
  it('a connected client ends with bars equal to /udf/history and the naive reference, backfill included', async () => {
    // dt may be far negative: a trade older than bars already sent (backfill, answered by reset).
    const batches = fc.array(fc.array(row(-200_000), { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 8 });
    resetsSeen = 0;
    await fc.assert(
      fc.asyncProperty(batches, (b) => run(b, null)),
      { numRuns: 15 },
    );
    // The runs did go through the backfill path (reset, then refetch).
    expect(resetsSeen).toBeGreaterThan(0);
  }, 120_000);

  it('a client that drops and resumes with since / sinceId ends with exactly the store’s bars and trades', async () => {
    // Times only move forward here: a bar older than the resume point cannot change while away
    // (docs/api.md, Live stream: resume replays bars from `since`).
    const batches = fc.array(fc.array(row(0), { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 10 });
    const plan = batches.chain((b) => fc.tuple(fc.constant(b), fc.array(fc.boolean(), { minLength: b.length, maxLength: b.length })));
    await fc.assert(
      fc.asyncProperty(plan, ([b, drops]) => run(b, drops)),
      { numRuns: 15 },
    );
  }, 120_000);
});

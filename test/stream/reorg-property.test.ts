/**
 * A property test of the stream under retractions (docs/api.md, Live stream: Reorgs), against the
 * store and a naive reference: a client following bars of several resolutions and the trades of a
 * token, while random batches are ingested and random retractions take trades back out (the
 * newest ones, as a reorg of the newest blocks does, or any of them), holds after every step the
 * newest bar of /udf/history and only bars equal to history's, which equals candles built straight
 * from the trades left; it holds exactly the store's trades (every removed one dropped, none
 * repeated); and a `sinceId` replay from 0 yields exactly the trades left.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Client, startLive, written, type Live } from './support.js';
import { ChartClient, history } from './chart-client.js';
import { addToken, refBars, type RefTrade } from '../udf/support.js';
import { aTrade } from '../helpers/builders.js';
import { readRawTrades, readTokenId } from '../v1/naive.js';
import type { TradeRecord } from '../../src/domain/records.js';

const T0 = 1_700_000_000;
const RESOLUTIONS = ['1S', '1', '15', '240', '1D'] as const;

type Row = { dt: number; price: number; volume: number };
/** A step: a batch to ingest, or a retraction of the `newest` trades by time or of those at `picks` (indexes into what is stored). */
type Step = { kind: 'ingest'; rows: Row[] } | { kind: 'newest'; n: number } | { kind: 'some'; picks: number[] };

const row = fc.record({ dt: fc.integer({ min: -3000, max: 4000 }), price: fc.integer({ min: 1, max: 500 }), volume: fc.integer({ min: 1, max: 100 }) });
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.array(row, { minLength: 1, maxLength: 6 }).map((rows) => ({ kind: 'ingest' as const, rows })) },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 4 }).map((n) => ({ kind: 'newest' as const, n })) },
  { weight: 1, arbitrary: fc.array(fc.nat(), { minLength: 1, maxLength: 3 }).map((picks) => ({ kind: 'some' as const, picks })) },
);

let live: Live;
let runs = 0;
let removedSeen = 0;
beforeAll(async () => {
  live = await startLive({ env: { RATE_LIMIT_ANON: '100000000/60' } });
});
afterAll(async () => live.stop());

async function run(steps: Step[]): Promise<void> {
  const token = addToken(live, { symbol: `RPROP${++runs}` }).address;
  const client = new ChartClient(live, token, RESOLUTIONS);
  try {
    await client.connect();
    /** What is stored, with each trade's reference row (seq: ingest order, which is id order). */
    const stored: { record: TradeRecord; ref: RefTrade }[] = [];
    let cursor = T0;
    let seq = 0;
    for (const s of steps) {
      if (s.kind === 'ingest') {
        cursor += 600;
        const trades = s.rows.map((r) => aTrade(token, { blockTime: cursor + r.dt, priceUsd: r.price / 100, volumeUsd: r.volume }));
        await live.ingest(trades);
        for (const t of trades) stored.push({ record: t, ref: { time: t.blockTime, seq: seq++, price: t.priceUsd, volume: t.volumeUsd } });
      } else {
        if (stored.length === 0) continue;
        let gone: typeof stored;
        if (s.kind === 'newest') gone = [...stored].sort((a, b) => b.ref.time - a.ref.time || b.ref.seq - a.ref.seq).slice(0, s.n);
        else gone = [...new Set(s.picks.map((p) => stored[p % stored.length]!))];
        await written(live);
        const r = await live.services.ingest.retract({
          trades: gone.map((g) => ({ signature: g.record.signature, index: g.record.index })),
          markets: [],
          tokens: [],
          records: [],
        });
        expect(r.removed).toBe(gone.length);
        for (const g of gone) stored.splice(stored.indexOf(g), 1);
      }
      await client.sync();
      const ref = stored.map((x) => x.ref);
      for (const res of RESOLUTIONS) {
        const expected = refBars(res, ref);
        expect(await history(live, token, res)).toEqual(expected);
        expect(client.mismatch(res, expected)).toBeNull();
      }
      const ids = (await readRawTrades(live.store, await readTokenId(live.store, token))).map((t) => t.id).sort((a, b) => a - b);
      expect(ids).toHaveLength(stored.length);
      expect([...client.trades.keys()].sort((a, b) => a - b)).toEqual(ids);
    }
    expect([...client.trades.values()].every((n) => n === 1)).toBe(true);
    // Every trade the client was sent and that went was named; a sinceId replay holds exactly what is left.
    expect(client.unknownRemoved).toEqual([]);
    removedSeen += client.resets;
    const c = await Client.open(`${live.wsBase}/v1/stream`);
    const ok = await c.request({ op: 'subscribe', channel: 'trades', token, sinceId: 0 });
    await c.request({ op: 'ping' });
    const replayed = c.of(ok.sub, 'trades').flatMap((m) => m.trades.map((t: { id: number }) => t.id));
    expect(replayed).toEqual([...client.trades.keys()].sort((a, b) => a - b));
    c.close();
  } finally {
    client.close();
  }
}

describe('stream bars and trades under retractions', () => {
  it('a connected client holds history’s newest bar, only bars equal to it, and exactly the trades left', async () => {
    removedSeen = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 2, maxLength: 10 }), (steps) => run(steps)),
      { numRuns: 15 },
    );
    // The runs did go through the reorg path (reset, then refetch).
    expect(removedSeen).toBeGreaterThan(0);
  }, 180_000);
});

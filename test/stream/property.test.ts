/**
 * Property tests of the stream against the store and a naive reference (/udf/history is checked
 * against candles built straight from the trades): a client following bars of several
 * resolutions while random batches (some backfilled) are ingested holds, after every batch, the
 * newest bar of history and every bar it holds equal to history's, missing only bars that one
 * batch filled between the newest bar it had and the new one (the stream sends the state after a
 * batch: docs/api.md, Live stream); a client that drops its connection at random points and
 * resumes with since / sinceId ends the same way, with exactly the store's trades, nothing
 * missing or repeated.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { startLive, type Live } from './support.js';
import { ChartClient, history } from './chart-client.js';
import { addToken, refBars, type RefBar, type RefTrade } from '../udf/support.js';
import { aTrade } from '../helpers/builders.js';
import { readRawTrades, readTokenId } from '../v1/naive.js';

const T0 = 1_700_000_000;
const RESOLUTIONS = ['1S', '5', '15', '240', '1D', '1W', '1M'] as const;

type Row = { dt: number; price: number; volume: number };
const row = (minDt: number) =>
  fc.record({ dt: fc.integer({ min: minDt, max: 4000 }), price: fc.integer({ min: 1, max: 500 }), volume: fc.integer({ min: 1, max: 100 }) });

let resetsSeen = 0;

const same = (a: RefBar[], b: RefBar[]) => expect(a).toEqual(b);

/** The chart against history and the reference, every resolution. */
async function check(live: Live, client: ChartClient, token: string, ref: RefTrade[]): Promise<void> {
  for (const r of RESOLUTIONS) {
    const expected = refBars(r, ref);
    same(await history(live, token, r), expected);
    expect(client.mismatch(r, expected)).toBeNull();
  }
}

/** One server and store for all runs (a store per run costs a database on PostgreSQL): each run has a token of its own. */
let live: Live;
let runs = 0;
beforeAll(async () => {
  // Every run's requests and subscribes count in one anonymous bucket.
  live = await startLive({ env: { RATE_LIMIT_ANON: '100000000/60' } });
});
afterAll(async () => live.stop());

async function run(batches: Row[][], drops: boolean[] | null): Promise<void> {
  const token = addToken(live, { symbol: `PROP${++runs}` }).address;
  const client = new ChartClient(live, token, RESOLUTIONS);
  try {
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
      await live.ingest(trades);
      for (const t of trades) ref.push({ time: t.blockTime, seq: ref.length, price: t.priceUsd, volume: t.volumeUsd });
      await client.sync(true);
      if (client.connected) await check(live, client, token, ref);
    }
    if (!client.connected) await client.connect();
    await client.sync();
    await check(live, client, token, ref);
    expect(client.breaches).toEqual([]);
    const ids = (await readRawTrades(live.store, await readTokenId(live.store, token))).map((t) => t.id).sort((a, b) => a - b);
    expect([...client.trades.keys()].sort((a, b) => a - b)).toEqual(ids);
    expect([...client.trades.values()].every((n) => n === 1)).toBe(true);
    resetsSeen += client.resets;
  } finally {
    client.close();
  }
}

describe('stream bars and trades against the store', () => {
  it('a connected client holds the newest bar of /udf/history and only bars equal to it, missing only bars a batch jumped over, backfill included', async () => {
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

  it('a client that drops and resumes with since / sinceId ends with the store’s bars as above and exactly its trades', async () => {
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

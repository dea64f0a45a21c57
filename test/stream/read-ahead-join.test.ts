/**
 * A change's turn takes in an ingest transaction of this process that is still open when the
 * change is heard (src/stream/changes.ts, gather): one read, one fan-out, one bar after both, yet
 * one trades message per transaction. SQLite only: the hub sees such a transaction through the
 * store's write gate (`settled()`); on PostgreSQL readers see the last commit, `settled()` is
 * always null and each commit is a change of its own (docs/architecture.md, The live hub).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Client, settle, startLive, type Live } from './support.js';
import { history } from './chart-client.js';
import { addToken } from '../udf/support.js';
import { aTrade } from '../helpers/builders.js';
import { hubOf } from '../../src/http/stream.js';

/** 20 s past a minute: minute bars start at T0 - 20, T0 + 40, T0 + 100. */
const T0 = 1_700_000_000;

describe('an ingest transaction open when a change is heard', () => {
  let live: Live;
  afterEach(async () => live.stop());

  it('takes in an ingest transaction open when a change is heard: one bar after both, one trades message per transaction', async () => {
    live = await startLive();
    const token = addToken(live, { symbol: 'JON' }).address;
    const trade = (blockTime: number, priceUsd: number) => aTrade(token, { blockTime, priceUsd, volumeUsd: 1 });
    live.ingest([trade(T0 + 5, 1)]);
    const c = await Client.open(`${live.wsBase}/v1/stream`);
    const bars = await c.request({ op: 'subscribe', channel: 'bars', token, resolution: '1' });
    const trades = await c.request({ op: 'subscribe', channel: 'trades', token });
    await c.waitFor((m) => m.op === 'bar');
    const b = await live.services.ingest.validate([trade(T0 + 12, 3), trade(T0 + 14, 4)].map((value, i) => ({ line: i + 1, value })));
    live.ingest([trade(T0 + 10, 2)]);
    // Begins before the first change is fanned out, and stays open across a turn of the event loop.
    const written = live.services.ingest.writeSliced(b);
    expect(live.store.settled()).toBeNull();
    await written;
    await hubOf(live.app).idle();
    await settle();
    const [bar] = await history(live, token, '1');
    expect(bar).toEqual({ t: T0 - 20, o: 1, h: 4, l: 1, c: 4, v: 4 });
    expect(c.of(bars.sub)).toEqual([
      { op: 'bar', sub: bars.sub, bar: { t: T0 - 20, o: 1, h: 1, l: 1, c: 1, v: 1 }, final: false },
      { op: 'bar', sub: bars.sub, bar, final: false },
    ]);
    expect(c.of(trades.sub).map((m) => m.trades.map((t: { blockTime: number }) => t.blockTime))).toEqual([[T0 + 10], [T0 + 12, T0 + 14]]);
    c.close();
  });
});

/**
 * Market-cap bars on the stream (docs/api.md, Live stream and Market-cap charts; issue 32): a bars
 * subscription with "metric":"mcap" gets the bars of /udf/history?currencyCode=MCAP (the price bars
 * times the circulating supply, volume in USD), first bar, live bars, final and `since` replay
 * alike, beside a price subscription of the same token and resolution; bad metrics are refused.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client, settle, startLive, type Live } from './support.js';
import { addToken } from '../udf/support.js';
import { aTrade } from '../helpers/builders.js';

let live: Live;
let token: string;
/** The fake clock's start; minute bars start at T0 - 20, T0 + 40, T0 + 100. */
const T0 = 1_700_000_000;
const SUPPLY = 1_000_000;

beforeEach(async () => {
  live = await startLive();
  token = addToken(live, { symbol: 'CAPS', circulatingSupply: SUPPLY }).address;
});
afterEach(async () => live.stop());

const trade = (blockTime: number, priceUsd: number, volumeUsd = 1) => aTrade(token, { blockTime, priceUsd, volumeUsd });
const cap = (b: { t: number; o: number; h: number; l: number; c: number; v: number }) => ({
  ...b,
  o: b.o * SUPPLY,
  h: b.h * SUPPLY,
  l: b.l * SUPPLY,
  c: b.c * SUPPLY,
});

describe('bars with metric mcap', () => {
  it('sends the MCAP bars of /udf/history, next to the price bars of a price subscription', async () => {
    await live.ingest([trade(T0 + 10, 0.001), trade(T0 + 20, 0.002)]);
    const c = await Client.open(`${live.wsBase}/v1/stream`);
    const capSub = await c.request({ op: 'subscribe', channel: 'bars', token, resolution: '1', metric: 'mcap' });
    expect(capSub).toEqual({ op: 'subscribed', id: capSub.id, sub: capSub.sub, channel: 'bars', token, resolution: '1', metric: 'mcap' });
    const priceSub = await c.request({ op: 'subscribe', channel: 'bars', token, resolution: '1' });
    await c.waitFor((m) => m.op === 'bar' && m.sub === priceSub.sub);
    expect(c.of(capSub.sub, 'bar')[0]).toEqual({
      op: 'bar',
      sub: capSub.sub,
      bar: cap({ t: T0 - 20, o: 0.001, h: 0.002, l: 0.001, c: 0.002, v: 2 }),
      final: false,
    });

    await live.ingest([trade(T0 + 30, 0.003, 5), trade(T0 + 50, 0.004)]); // changes T0 - 20, starts T0 + 40
    await c.waitFor((m) => m.op === 'bar' && m.sub === capSub.sub && m.bar.t === T0 + 40);
    await c.waitFor((m) => m.op === 'bar' && m.sub === priceSub.sub && m.bar.t === T0 + 40);
    await settle();
    const history = await live.http.get(`/udf/history?symbol=${token}&resolution=1&from=${T0 - 60}&to=${T0 + 100}&currencyCode=MCAP`);
    const want = history.body.t.map((t: number, i: number) => ({
      t,
      o: history.body.o[i],
      h: history.body.h[i],
      l: history.body.l[i],
      c: history.body.c[i],
      v: history.body.v[i],
    }));
    expect(c.of(capSub.sub, 'bar').slice(1)).toEqual([
      { op: 'bar', sub: capSub.sub, bar: want[0], final: true },
      { op: 'bar', sub: capSub.sub, bar: want[1], final: false },
    ]);
    expect(want[1]).toEqual(cap({ t: T0 + 40, o: 0.004, h: 0.004, l: 0.004, c: 0.004, v: 1 }));
    expect(c.of(priceSub.sub, 'bar').at(-1)).toEqual({
      op: 'bar',
      sub: priceSub.sub,
      bar: { t: T0 + 40, o: 0.004, h: 0.004, l: 0.004, c: 0.004, v: 1 },
      final: false,
    });
    c.close();
  });

  it('replays from `since` in market cap', async () => {
    await live.ingest([trade(T0 + 10, 1), trade(T0 + 70, 2), trade(T0 + 130, 3)]);
    const c = await Client.open(`${live.wsBase}/v1/stream`);
    const ok = await c.request({ op: 'subscribe', channel: 'bars', token, resolution: '1', metric: 'mcap', since: T0 + 50 });
    await c.waitFor((m) => m.op === 'bar' && m.bar.t === T0 + 100);
    expect(c.of(ok.sub, 'bar').map((m) => [m.bar.t, m.bar.c, m.final])).toEqual([
      [T0 + 40, 2 * SUPPLY, true],
      [T0 + 100, 3 * SUPPLY, false],
    ]);
    c.close();
  });

  it('tells a market-cap subscription a change of supply with reset "supply", then bars in the new scale', async () => {
    await live.ingest([trade(T0 + 10, 2)]);
    const c = await Client.open(`${live.wsBase}/v1/stream`);
    const capSub = await c.request({ op: 'subscribe', channel: 'bars', token, resolution: '1', metric: 'mcap' });
    const priceSub = await c.request({ op: 'subscribe', channel: 'bars', token, resolution: '1' });
    await c.waitFor((m) => m.op === 'bar' && m.sub === priceSub.sub);
    await live.ingest([
      {
        type: 'token',
        address: token,
        symbol: 'CAPS',
        name: 'Test Token',
        decimals: 6,
        totalSupply: 1_000_000,
        circulatingSupply: 2 * SUPPLY,
        createdAt: 1_700_000_000,
        logoUri: null,
      },
    ]);
    const reset = await c.waitFor((m) => m.op === 'reset');
    expect(reset).toEqual({ op: 'reset', sub: capSub.sub, reason: 'supply' });
    await live.ingest([trade(T0 + 20, 3)]);
    const bar = await c.waitFor((m) => m.op === 'bar' && m.sub === capSub.sub && m.bar.c === 3 * 2 * SUPPLY);
    expect(bar).toEqual({ op: 'bar', sub: capSub.sub, bar: { t: T0 - 20, o: 4 * SUPPLY, h: 6 * SUPPLY, l: 4 * SUPPLY, c: 6 * SUPPLY, v: 2 }, final: false });
    // the price subscription got no reset
    expect(c.of(priceSub.sub, 'reset')).toEqual([]);
    c.close();
  });

  it('refuses a metric it does not know, and mcap for a token without a circulating supply', async () => {
    const bare = addToken(live, { symbol: 'BARE', circulatingSupply: null }).address;
    const c = await Client.open(`${live.wsBase}/v1/stream`);
    for (const metric of ['cap', 'MCAP', 7]) {
      const err = await c.request({ op: 'subscribe', channel: 'bars', token, resolution: '1', metric });
      expect(err).toMatchObject({ op: 'error', error: { code: 'invalid_parameter', param: 'metric' } });
    }
    const none = await c.request({ op: 'subscribe', channel: 'bars', token: bare, resolution: '1', metric: 'mcap' });
    expect(none).toMatchObject({ op: 'error', error: { code: 'invalid_parameter', param: 'metric' } });
    c.close();
  });
});

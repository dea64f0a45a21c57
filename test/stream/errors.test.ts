/**
 * Bad client messages on /v1/stream: each answered with an error in the codes of the JSON API
 * while the connection stays open; the caps (200 subscriptions, 100 tokens); the 101st bad
 * message and a message over 64 KB close with 1008; subscribes count in the rate-limit bucket.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client, startLive, written, type Live } from './support.js';
import { addToken } from '../udf/support.js';

let live: Live;
let token: string;
afterEach(async () => live.stop());

describe('error answers', () => {
  beforeEach(async () => {
    live = await startLive();
    token = addToken(live, { symbol: 'ERR' }).address;
  });

  it('answers each kind of bad message with its code and param, and stays open', async () => {
    const c = await Client.open(`${live.wsBase}/v1/stream`);
    const cases: [unknown, Record<string, unknown>][] = [
      ['not json', { id: null, error: { code: 'invalid_body', message: 'a message must be a JSON object' } }],
      [[1, 2], { id: null, error: { code: 'invalid_body', message: 'a message must be a JSON object' } }],
      [{ op: 'ping' }, { id: null, error: { code: 'invalid_parameter', message: 'id must be a string of at most 128 characters', param: 'id' } }],
      [
        { op: 'ping', id: 7 },
        { id: null, error: { code: 'invalid_parameter', message: 'id must be a string of at most 128 characters', param: 'id' } },
      ],
      [
        { op: 'dance', id: 'a' },
        { id: 'a', error: { code: 'invalid_parameter', message: 'op must be subscribe, unsubscribe or ping', param: 'op' } },
      ],
      [
        { op: 'subscribe', id: 'b', channel: 'news', token },
        { id: 'b', error: { code: 'invalid_parameter', message: 'channel must be bars, trades, prices or overview', param: 'channel' } },
      ],
      [
        { op: 'subscribe', id: 'c', channel: 'bars', token, resolution: '7' },
        { id: 'c', error: { code: 'invalid_parameter', message: 'resolution must be one of the supported resolutions', param: 'resolution' } },
      ],
      [
        { op: 'subscribe', id: 'd', channel: 'bars', token, resolution: '1', since: -1 },
        { id: 'd', error: { code: 'invalid_parameter', message: 'since must be a bar time in unix seconds', param: 'since' } },
      ],
      [
        { op: 'subscribe', id: 'e', channel: 'trades', token, sinceId: 1.5 },
        { id: 'e', error: { code: 'invalid_parameter', message: 'sinceId must be a trade id (a non-negative integer)', param: 'sinceId' } },
      ],
      [
        { op: 'subscribe', id: 'f', channel: 'prices', tokens: Array(101).fill(token) },
        { id: 'f', error: { code: 'invalid_parameter', message: 'tokens may name at most 100 tokens', param: 'tokens' } },
      ],
      [
        { op: 'subscribe', id: 'g', channel: 'overview', token: 'NOPE' },
        { id: 'g', error: { code: 'token_not_found', message: 'unknown token NOPE', param: 'token' } },
      ],
      [
        { op: 'subscribe', id: 'h', channel: 'prices', tokens: [token, 'NOPE'] },
        { id: 'h', error: { code: 'token_not_found', message: 'unknown token NOPE', param: 'tokens' } },
      ],
      [
        { op: 'unsubscribe', id: 'i', sub: 's99' },
        { id: 'i', error: { code: 'subscription_not_found', message: 'no subscription s99 on this connection', param: 'sub' } },
      ],
    ];
    for (const [msg, expected] of cases) {
      const before = c.messages.length;
      c.send(msg);
      const got = await c.waitFor((m) => c.messages.indexOf(m) >= before);
      expect(got).toEqual({ op: 'error', ...expected });
    }
    const ok = await c.request({ op: 'subscribe', channel: 'overview', token: 'ERR' });
    expect(ok.op).toBe('subscribed');
    c.close();
  });

  it('refuses the 201st subscription of a connection', async () => {
    const c = await Client.open(`${live.wsBase}/v1/stream`);
    for (let i = 0; i < 200; i++) c.send({ op: 'subscribe', id: `x${i}`, channel: 'trades', token });
    await c.waitFor((m) => m.id === 'x199', 15_000); // 200 subscribes, each a few store reads
    // The 200 spent the connection's message burst (200, refilled at 50 a second: docs/api.md,
    // Live stream): 100 ms refill a few, so the 201st meets the subscription cap, not the meter.
    await new Promise((r) => setTimeout(r, 100));
    const over = await c.request({ op: 'subscribe', channel: 'trades', token });
    expect(over).toEqual({ op: 'error', id: over.id, error: { code: 'invalid_parameter', message: 'at most 200 subscriptions per connection', param: 'op' } });
    expect(c.messages.filter((m) => m.op === 'subscribed')).toHaveLength(200);
    c.close();
  });

  it('stays open after 100 bad messages and closes with 1008 at the 101st', async () => {
    const c = await Client.open(`${live.wsBase}/v1/stream`);
    for (let i = 0; i < 100; i++) c.send('{');
    await c.waitFor(() => c.messages.length === 100);
    expect((await c.request({ op: 'ping' })).op).toBe('pong');
    c.send('{');
    expect(await c.closed()).toBe(1008);
    expect(c.messages.filter((m) => m.op === 'error')).toHaveLength(100);
  });

  it('closes with 1008 on a message over 65536 bytes, and accepts one of exactly 65536', async () => {
    const c = await Client.open(`${live.wsBase}/v1/stream`);
    // Not a ping: a ping over 1 KB is refused on its own (test/stream/budget.test.ts).
    const overhead = JSON.stringify({ op: 'unsubscribe', id: 'p', sub: 's999', pad: '' }).length;
    const exact = JSON.stringify({ op: 'unsubscribe', id: 'p', sub: 's999', pad: 'x'.repeat(65_536 - overhead) });
    expect(Buffer.byteLength(exact)).toBe(65_536);
    c.send(exact);
    expect((await c.waitFor((m) => m.id === 'p')).error.code).toBe('subscription_not_found');
    c.send(JSON.stringify({ op: 'unsubscribe', id: 'q', sub: 's999', pad: 'x'.repeat(65_537 - overhead) }));
    expect(await c.closed()).toBe(1008);
  });
});

describe('a store fault', () => {
  it('answers internal without details and keeps the connection', async () => {
    live = await startLive();
    token = addToken(live, { symbol: 'GONE' }).address;
    await written(live);
    const c = await Client.open(`${live.wsBase}/v1/stream`);
    await live.store.close(); // every read fails from here on
    const err = await c.request({ op: 'subscribe', channel: 'trades', token });
    expect(err).toEqual({ op: 'error', id: err.id, error: { code: 'internal', message: 'internal error' } });
    expect((await c.request({ op: 'ping' })).op).toBe('pong');
    c.close();
  });
});

describe('rate limit of messages', () => {
  it('counts subscribe and unsubscribe in the bucket, not ping; over it answers rate_limited and consumes nothing', async () => {
    live = await startLive({ env: { RATE_LIMIT_ANON: '3/60' } });
    token = addToken(live, { symbol: 'RL' }).address;
    const c = await Client.open(`${live.wsBase}/v1/stream`); // 1
    for (let i = 0; i < 5; i++) expect((await c.request({ op: 'ping' })).op).toBe('pong');
    const a = await c.request({ op: 'subscribe', channel: 'trades', token }); // 2
    const b = await c.request({ op: 'unsubscribe', sub: a.sub }); // 3
    expect([a.op, b.op]).toEqual(['subscribed', 'unsubscribed']);
    const over = await c.request({ op: 'subscribe', channel: 'trades', token });
    expect(over.op).toBe('error');
    expect(over.error.code).toBe('rate_limited');
    expect(over.error.message).toMatch(/^too many requests; retry in \d+ s$/);
    c.close();
  });
});

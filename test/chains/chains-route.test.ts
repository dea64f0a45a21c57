/**
 * GET /v1/chains (docs/api.md, Chains): the deployment's chains in CHAINS order, the default
 * first, each with its tokens, markets, trades and newest trade as the store counts them (a
 * chain's keys are a range of the key order, the default chain's those without a colon), and its
 * indexer as /healthz shows it. Public, rate-limited and conditional like the other reads.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { chainWorld, CHAINS, M, NOW, X, type World } from './v1-world.js';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aTrade } from '../helpers/builders.js';

let w: World | undefined;
let one: TestApp | undefined;
afterEach(async () => {
  await w?.t.close();
  await one?.close();
  w = one = undefined;
});

describe('GET /v1/chains', () => {
  it('counts each chain of several from the store, in CHAINS order, the same 0x address once on each', async () => {
    w = await chainWorld({ CHAINS, RATE_LIMIT_ANON: '3/60' });
    const { t } = w;
    const res = await t.http.get('/v1/chains');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      chains: [
        { chain: 'solana', default: true, tokens: 1, markets: 1, trades: 1, lastTradeAt: NOW - 100, indexer: null },
        { chain: 'base', default: false, tokens: 1, markets: 1, trades: 2, lastTradeAt: NOW - 500, indexer: null },
        { chain: 'ethereum', default: false, tokens: 1, markets: 1, trades: 3, lastTradeAt: NOW - 200, indexer: null },
      ],
    });
    // Rate-limited and conditional as every public read.
    expect([res.headers['ratelimit-limit'], res.headers['ratelimit-remaining']]).toEqual(['3', '2']);
    const again = await t.http.get('/v1/chains').set('If-None-Match', res.headers.etag!);
    expect(again.status).toBe(304);
    await t.http.get('/v1/chains');
    expect((await t.http.get('/v1/chains')).status).toBe(429);
  });

  it('counts anew after an ingest on one chain (the cached counts are dropped)', async () => {
    w = await chainWorld();
    const { t } = w;
    await t.http.get('/v1/chains');
    await t.ingest([{ ...aTrade(X, { market: M, signature: 'b3', blockTime: NOW - 50 }), chain: 'base' }]);
    const res = await t.http.get('/v1/chains');
    expect(res.body.chains.map((c: { chain: string; trades: number; lastTradeAt: number }) => [c.chain, c.trades, c.lastTradeAt])).toEqual([
      ['solana', 1, NOW - 100],
      ['base', 3, NOW - 50],
      ['ethereum', 3, NOW - 200],
    ]);
  });

  it("shows a chain's indexer as /healthz does, null for a chain none indexes", async () => {
    w = await chainWorld();
    const { t } = w;
    t.services.indexers.configure(['base']);
    const res = await t.http.get('/v1/chains');
    const health = await t.http.get('/healthz');
    expect(health.body.indexers).toEqual([{ chain: 'base', head: 0, indexed: 0, lag: 0, state: 'backfilling' }]);
    expect(res.body.chains.map((c: { indexer: unknown }) => c.indexer)).toEqual([null, health.body.indexers[0], null]);
  });

  it('answers one chain, the default, on a one-chain deployment with an empty store', async () => {
    one = makeTestApp({ env: { CHAIN: 'base' } });
    const res = await one.http.get('/v1/chains');
    expect(res.body).toEqual({ chains: [{ chain: 'base', default: true, tokens: 0, markets: 0, trades: 0, lastTradeAt: null, indexer: null }] });
  });
});

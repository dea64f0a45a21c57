/**
 * A retraction on one instance reaches the caches of another on the same PostgreSQL database
 * (docs/indexer.md, Reorgs: what a retraction removes; docs/operations.md, Many instances): the
 * other instance, its overview, top traders, history series and trending warm, answers without
 * the removed trade once the change notice arrives (LISTEN/NOTIFY, and Redis), and its top-traders
 * board takes the trade back out through the removal log it reads from the database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { openPgStore, type PgStore } from '../../src/store/pg/pg-store.js';
import { createServices } from '../../src/services/index.js';
import { createApp, type App } from '../../src/app.js';
import { createLogger } from '../../src/logger.js';
import { loadConfig } from '../../src/config.js';
import { fakeClock } from '../helpers/make-test-app.js';
import { aMarket, aToken, aTrade, anAddress } from '../helpers/builders.js';
import { freshDatabase, redisUrl, type FreshDatabase } from './support.js';

const NOW = 1_700_000_000;

describe.each([
  { bus: 'LISTEN/NOTIFY', redis: false },
  { bus: 'Redis', redis: true },
])('a retraction heard by another instance, by $bus', ({ redis }) => {
  let db: FreshDatabase;
  const instances: { store: PgStore; app: App; services: ReturnType<typeof createServices> }[] = [];

  beforeAll(async () => {
    db = await freshDatabase('retract_two');
    const clock = fakeClock(NOW * 1000);
    for (const name of ['a', 'b']) {
      const config = loadConfig({
        DATABASE_URL: db.url,
        DEMO_DATA: 'off',
        DEMO_FEED: 'off',
        LOG_LEVEL: 'silent',
        INSTANCE_ID: `retract-${name}`,
        ...(redis ? { REDIS_URL: redisUrl() } : {}),
      });
      const store = await openPgStore(db.url, { instanceId: config.instanceId });
      const services = createServices({ store, clock, config });
      const app = createApp({ config, store, clock, services, logger: createLogger('silent') });
      await app.deps.coord.ready(10_000);
      instances.push({ store, app, services });
    }
  }, 60_000);

  afterAll(async () => {
    for (const i of instances) {
      await i.app.deps.coord.close();
      await i.store.close();
    }
    await db?.drop();
  });

  it('drops what the removed trade changed on the other instance', async () => {
    const [a, b] = [instances[0]!, instances[1]!];
    const token = aToken({ symbol: 'TWO' });
    const market = aMarket(token.address);
    const [w1, w2] = [anAddress('wa'), anAddress('wb')];
    const trades = [
      aTrade(token.address, { market: market.address, wallet: w1, blockTime: NOW - 300, volumeUsd: 10, priceUsd: 1 }),
      aTrade(token.address, { market: market.address, wallet: w2, blockTime: NOW - 200, volumeUsd: 500, priceUsd: 9 }),
      aTrade(token.address, { market: market.address, wallet: w1, blockTime: NOW - 100, volumeUsd: 30, priceUsd: 2 }),
    ];
    await a.services.ingest.ingest([token, market, ...trades].map((value, i) => ({ line: i + 1, value })));
    const read = async () => {
      const http = request(b.app.callback());
      const overview = (await http.get(`/v1/token/${token.address}/overview`)).body as { windows: Record<string, { volumeUsd: number }> };
      const top = (await http.get(`/v1/token/${token.address}/top-traders?window=1h`)).body as { traders: { wallet: string; volumeUsd: number }[] };
      const history = (await http.get(`/udf/history?symbol=${token.address}&resolution=1&from=${NOW - 3600}&to=${NOW}`)).body as { h?: number[] };
      const trending = (await http.get('/v1/market/trending?window=1h')).body as { tokens: { volumeUsd: number }[] };
      return {
        volume: overview.windows['1h']?.volumeUsd,
        top: top.traders.map((x) => [x.wallet, x.volumeUsd]),
        high: Math.max(...(history.h ?? [])),
        trending: trending.tokens[0]?.volumeUsd,
      };
    };
    // B has seen A's ingest (its notice) and holds every answer warm.
    const deadline = Date.now() + 10_000;
    let seen = await read();
    while (seen.volume !== 540 && Date.now() < deadline) seen = await read();
    expect(seen).toEqual({
      volume: 540,
      top: [
        [w2, 500],
        [w1, 40],
      ],
      high: 9,
      trending: 540,
    });

    await a.services.ingest.retract({ trades: [{ signature: trades[1]!.signature, index: 0 }], markets: [], tokens: [], records: [] });
    const want = { volume: 40, top: [[w1, 40]], high: 2, trending: 40 };
    let after = await read();
    while (JSON.stringify(after) !== JSON.stringify(want) && Date.now() < deadline + 10_000) after = await read();
    expect(after).toEqual(want);
  }, 60_000);
});

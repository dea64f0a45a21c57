/**
 * After `cli migrate-store`, every read answers as before (docs/operations.md, Many instances:
 * moving a store to PostgreSQL): a SQLite store filled through the real services (demo data, a
 * tenant with keys, a password and a dashboard session, a subscription and its events) answers a
 * list of requests that covers every GET route of /udf, /v1 and the dashboard's API; the same app
 * on the PostgreSQL copy, at the same clock, answers each byte for byte. A cursor and a session
 * issued before the copy work after it, and new trades are numbered above the copied ones.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import request from 'supertest';
import Database from 'better-sqlite3';
import { main } from '../../src/cli.js';
import { openStore } from '../../src/store/sqlite/db.js';
import { openPgStore, type PgStore } from '../../src/store/pg/pg-store.js';
import { createServices } from '../../src/services/index.js';
import { createApp, type App } from '../../src/app.js';
import { createLogger } from '../../src/logger.js';
import { loadDemo } from '../../src/services/demo.js';
import { demoRecords } from '../../src/domain/demo-data.js';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aTrade } from '../helpers/builders.js';
import { aTenantWithPassword, signIn } from '../dashboard/support.js';
import { freshDatabase, type FreshDatabase } from './support.js';

type Answer = { status: number; type: string | undefined; body: string };

let dir: string;
let path: string;
let target: FreshDatabase;
let before: TestApp;
let urls: string[];
let headers: Record<string, string>;
let sessionCookie: string;
let answersBefore: Map<string, Answer>;
let pgStore: PgStore | null = null;
let after: App;
let hot: string;
/** A stored market of the hot token: a new trade must name one. */
let hotMarket: string;

async function answer(app: App, url: string): Promise<Answer> {
  const res = await request(app.callback())
    .get(url)
    .set(url.startsWith('/dashboard/api/') ? { Cookie: sessionCookie } : headers)
    .set('Accept-Encoding', 'identity');
  // What the rate limiter has left is the process's (in memory), not the store's.
  const body = url === '/v1/me' || url === '/dashboard/api/account' ? res.text.replace(/"remaining":\d+/, '"remaining":0') : res.text;
  return { status: res.status, type: res.headers['content-type'], body };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'migrate-routes-'));
  path = join(dir, 'tokens.db');
  target = await freshDatabase('migrate_routes');
  before = makeTestApp({ store: openStore(path, { backgroundCheckpoint: false }) });
  const opts = { tokens: 4, days: 2, seed: 11, until: before.clock.seconds() };
  const tokens = [...demoRecords(opts)].filter((r) => r.type === 'token').map((r) => r.address);
  const markets = [...demoRecords(opts)].filter((r) => r.type === 'market').map((r) => r.address);
  hot = tokens[0]!;
  const hotWallet = [...demoRecords(opts)].find((r) => r.type === 'trade' && r.token === hot)!;
  if (hotWallet.type !== 'trade') throw new Error('the demo set has no trade of its first token');
  hotMarket = hotWallet.market;
  const made = await aTenantWithPassword(before, { plan: 'pro' });
  const key = await before.services.accounts.createKey(made.tenant.id, { name: 'partner', scopes: ['read', 'manage', 'ingest'] });
  headers = { 'x-api-key': key.secret };
  await before.services.subscriptions.register(made.tenant.id, hot, 'http://127.0.0.1:9/hook');
  await loadDemo(before.services, opts);
  before.clock.advance(60_000);
  sessionCookie = (await signIn(before, made.email)).cookie;

  const now = before.clock.seconds();
  const page1 = await request(before.app.callback()).get(`/v1/token/${hot}/trades?limit=7`);
  const cursor = page1.body.nextCursor as string;
  expect(typeof cursor).toBe('string');
  const event1 = await request(before.app.callback()).get('/v1/events?limit=3').set(headers);
  expect(event1.body.events.length).toBe(3);
  urls = [
    '/udf/config',
    `/udf/symbols?symbol=${hot}`,
    `/udf/symbols?symbol=${markets[0]}&currencyCode=USD`,
    '/udf/search?query=a&limit=30',
    '/udf/time',
    `/udf/history?symbol=${hot}&resolution=15&from=${now - 86_400}&to=${now}`,
    `/udf/history?symbol=${hot}&resolution=1D&countback=300&to=${now + 60}`,
    `/udf/history?symbol=${hot}&resolution=1S&countback=50&to=${now}`,
    `/udf/quotes?symbols=${tokens.join(',')}`,
    `/udf/marks?symbol=${hot}&from=${now - 30 * 86_400}&to=${now + 60}&resolution=15&wallet=${hotWallet.wallet}`,
    ...tokens.map((a) => `/v1/token/${a}/overview`),
    `/v1/token/${hot}/trades?limit=7`,
    `/v1/token/${hot}/trades?limit=7&cursor=${encodeURIComponent(cursor)}`,
    `/v1/token/${hot}/trades?limit=20&side=buy&after=${now - 3600}&before=${now}`,
    `/v1/token/${hot}/candles?resolution=60&countback=100`,
    `/v1/token/${hot}/candles?resolution=5&countback=100&market=${markets[0]}&currency=native`,
    `/v1/token/${hot}/top-traders?window=24h&sort=volume&limit=20`,
    `/v1/token/${hot}/top-traders?window=30d&sort=net&limit=20`,
    `/v1/token/${hot}/holders?limit=20`,
    `/v1/token/${hot}/markets?limit=20`,
    '/v1/market/trending?window=24h&limit=20',
    '/v1/market/gainers?window=1h&limit=20',
    '/v1/market/losers?window=6h&limit=20&minLiquidityUsd=1000',
    '/v1/market/new?limit=20',
    '/v1/search?q=a&limit=20',
    '/v1/chains',
    `/v1/prices?addresses=${tokens.join(',')}`,
    `/v1/prices/at?addresses=${tokens.join(',')}&time=${now - 7200}`,
    '/v1/me',
    '/v1/keys',
    '/v1/tokens/registered',
    '/v1/events?limit=3',
    `/v1/events?limit=3&cursor=${encodeURIComponent(event1.body.nextCursor as string)}`,
    '/dashboard/api/session',
    '/dashboard/api/account',
    '/dashboard/api/keys',
    '/dashboard/api/subscriptions',
  ];
  answersBefore = new Map();
  for (const url of urls) answersBefore.set(url, await answer(before.app, url));
  before.close();

  let out = '';
  let err = '';
  const code = await main(['migrate-store', '--to', target.url], {
    stdout: (s) => void (out += s),
    stderr: (s) => void (err += s),
    stdin: Readable.from(['']),
    env: { DATABASE_PATH: path },
  });
  expect({ code, err: code === 0 ? '' : err }).toEqual({ code: 0, err: '' });
  expect(out).toContain('into PostgreSQL');

  pgStore = await openPgStore(target.url, { instanceId: 'migrate-routes' });
  const services = createServices({ store: pgStore, clock: before.clock, config: before.config });
  after = createApp({ config: before.config, store: pgStore, clock: before.clock, services, logger: createLogger('silent') });
}, 180_000);

afterAll(async () => {
  await after?.deps.coord.close();
  await pgStore?.close();
  await target?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('every read after cli migrate-store', () => {
  it('covers every GET route of /udf, /v1 and the dashboard API (the stream aside)', () => {
    const covered = new Set(urls.map((u) => u.split('?')[0]!.replace(hot, ':address')));
    const routes = before.app.routes.filter((r) => r.method === 'get' && /^\/(udf|v1|dashboard\/api)\//.test(r.path) && r.path !== '/v1/stream');
    expect(routes.map((r) => r.path).filter((p) => !covered.has(p))).toEqual([]);
    expect([...answersBefore.values()].every((a) => a.status === 200)).toBe(true);
  });

  it('answers each request on PostgreSQL byte for byte as on SQLite, at the same clock', async () => {
    const differ: string[] = [];
    for (const url of urls) {
      const got = await answer(after, url);
      if (JSON.stringify(got) !== JSON.stringify(answersBefore.get(url))) differ.push(url);
      expect.soft({ url, ...got }).toEqual({ url, ...answersBefore.get(url)! });
    }
    expect(differ).toEqual([]);
  });

  it('numbers a new trade above every copied one', async () => {
    const lite = new Database(path, { readonly: true });
    const last = lite.prepare('SELECT max(id) FROM trades').pluck().get() as number;
    lite.close();
    const res = await request(after.callback())
      .post('/v1/ingest')
      .set(headers)
      .set('Content-Type', 'application/x-ndjson')
      .send(JSON.stringify(aTrade(hot, { market: hotMarket, blockTime: before.clock.seconds() - 1 })) + '\n');
    expect(res.status).toBe(200);
    const now = await request(after.callback()).get(`/v1/token/${hot}/trades?limit=1`);
    expect(now.body.trades[0].id).toBe(last + 1);
  });
});

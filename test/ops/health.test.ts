/**
 * /healthz in the many-instance shape (docs/api.md, Operations): the instance, the store's kind
 * and state, Redis's state; 503 only when the store is down. With REDIS_URL naming a Redis that
 * does not answer (a closed port), the instance is degraded but correct: it serves no cached
 * answer, so a change its caches were never told about shows at once, and redis_up is 0; it
 * closes at once, however long Redis stays away. The store's kind is the engine the helpers
 * opened (STORE); a real server on PostgreSQL is tested in test/engines/pg-server.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import { aToken } from '../helpers/builders.js';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { testEngine } from '../helpers/pg-test-store.js';

const apps: TestApp[] = [];
const app = (env: Record<string, string> = {}) => {
  const t = makeTestApp({ env });
  apps.push(t);
  return t;
};
afterEach(async () => {
  for (const t of apps.splice(0)) {
    await t.app.deps.coord.close();
    await t.close();
  }
});

/** A loopback port nothing listens on. */
const closedPort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

/** A token's name as the overview route answers it (a cached answer). */
async function overviewName(t: TestApp, address: string): Promise<string> {
  const res = await t.http.get(`/v1/token/${address}/overview`);
  expect(res.status).toBe(200);
  return res.body.name as string;
}

/** Renames a token behind the caches' back: a write straight to the table tells no listener. */
const renameQuietly = (t: TestApp, address: string, name: string) => t.sql('UPDATE tokens SET name = ? WHERE address = ?', name, address);

describe('/healthz', () => {
  it('names the instance, the store kind and state, and Redis off when it is not configured', async () => {
    const t = app({ INSTANCE_ID: 'inst-a' });
    const res = await t.http.get('/healthz');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({ status: 'ok', instance: 'inst-a', store: { kind: testEngine(), state: 'up' }, redis: 'off' });
  });

  it('defaults the instance to the host name and pid', async () => {
    const t = app();
    expect((await t.http.get('/healthz')).body.instance).toMatch(new RegExp(`^[A-Za-z0-9._-]+-${process.pid}$`));
  });

  it('answers 503 "down" when the store does not answer', async () => {
    const t = app({ INSTANCE_ID: 'inst-b' });
    await t.store.close();
    const res = await t.http.get('/healthz');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 'down', instance: 'inst-b', store: { kind: testEngine(), state: 'down' }, redis: 'off' });
  });

  it('labels every metric with the instance and reports store_up 1 and redis_up 0 without Redis', async () => {
    const t = app({ INSTANCE_ID: 'inst-m' });
    await t.http.get('/healthz');
    const lines = (await t.http.get('/metrics')).text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
    expect(lines.length).toBeGreaterThan(50);
    for (const line of lines) expect(line).toContain('instance="inst-m"');
    expect(lines).toContain('store_up{instance="inst-m"} 1');
    expect(lines).toContain('redis_up{instance="inst-m"} 0');
  });
});

describe('an instance whose Redis is down', () => {
  it('is degraded (200, "redis":"down"), serves no cached answer, and says redis_up 0', async () => {
    const t = app({ INSTANCE_ID: 'inst-d', REDIS_URL: `redis://127.0.0.1:${await closedPort()}/0` });
    // The bus exists and keeps trying; closing it afterwards must not wait for Redis (afterEach).
    expect(await t.app.deps.coord.ready(300)).toBe('down');
    const token = aToken({ name: 'Before' });
    t.ingest([token]);
    const res = await t.http.get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'degraded', instance: 'inst-d', store: { kind: testEngine(), state: 'up' }, redis: 'down' });

    expect(await overviewName(t, token.address)).toBe('Before');
    await renameQuietly(t, token.address, 'After');
    // A new event-loop turn, as the next request of a client is.
    await new Promise((r) => setImmediate(r));
    expect(await overviewName(t, token.address)).toBe('After');
    const metrics = (await t.http.get('/metrics')).text;
    expect(metrics).toContain('redis_up{instance="inst-d"} 0');
  });

  it('(beside it, without REDIS_URL the same quiet change is not seen: the answer is cached)', async () => {
    const t = app();
    // On PostgreSQL the instance's bus is the database's own LISTEN/NOTIFY (nothing is cached
    // until it listens); SQLite has none.
    expect(await t.app.deps.coord.ready(30_000)).toBe(testEngine() === 'postgres' ? 'up' : 'off');
    const token = aToken({ name: 'Before' });
    t.ingest([token]);
    expect(await overviewName(t, token.address)).toBe('Before');
    await renameQuietly(t, token.address, 'After');
    await new Promise((r) => setImmediate(r));
    expect(await overviewName(t, token.address)).toBe('Before');
  });
});

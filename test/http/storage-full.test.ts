/**
 * A full store: every write answers 507 insufficient_storage in the envelope, nothing
 * half-written; reads still work; /healthz says so (200 degraded, store full) until the store has
 * room and a write succeeds again. On SQLite the store fills for real: max_page_count pinned at
 * its size makes every write that needs a new page fail with SQLITE_FULL, the same error a full
 * disk gives. On PostgreSQL (whose disk a test cannot fill) a trigger makes the server refuse
 * every new subscription with disk_full (SQLSTATE 53100), the error it gives for a full disk.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { anAddress } from '../helpers/builders.js';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import type { Store } from '../../src/store/sqlite/db.js';
import type { PgStore } from '../../src/store/pg/pg-store.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** Leaves the store no room for new rows: SQLite keeps the pages it has, PostgreSQL refuses subscriptions. */
async function fill(app: TestApp): Promise<void> {
  await app.services.repos.stats.answers(); // the helpers' key is stored (queued on PostgreSQL)
  const store = app.store as Store | PgStore;
  if (store.kind === 'sqlite') {
    store.db.pragma(`max_page_count = ${store.db.pragma('page_count', { simple: true }) as number}`);
    return;
  }
  await store.pool.query(
    "CREATE FUNCTION disk_full() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = 'disk_full'; END $$",
  );
  await store.pool.query('CREATE TRIGGER disk_full BEFORE INSERT ON subscriptions FOR EACH ROW EXECUTE FUNCTION disk_full()');
}

/** Gives the store room again. */
async function makeRoom(app: TestApp): Promise<void> {
  const store = app.store as Store | PgStore;
  if (store.kind === 'sqlite') store.db.pragma('max_page_count = 1000000');
  else await store.pool.query('DROP TRIGGER disk_full ON subscriptions');
}

describe('a full store', () => {
  it('answers writes with 507 insufficient_storage, keeps reads working, and /healthz reports it', async () => {
    t = makeTestApp({ env: { INSTANCE_ID: 'full-1' } });
    const kind = t.store.kind;
    const { secret, tenantId } = t.makeKey({ plan: 'enterprise' });
    expect((await t.http.get('/healthz')).body).toEqual({ status: 'ok', instance: 'full-1', store: { kind, state: 'up' }, redis: 'off' });
    await fill(t);

    // Register until the free room in the existing pages runs out (on PostgreSQL: at once).
    let accepted = 0;
    let refused: Awaited<ReturnType<typeof t.http.post>> | null = null;
    while (refused === null && accepted < 5000) {
      const res = await t.http.post('/v1/tokens/register').set('x-api-key', secret).send({ address: anAddress() });
      if (res.status === 201) accepted++;
      else refused = res;
    }
    expect(refused).not.toBeNull();
    expect(refused!.status).toBe(507);
    expect(refused!.body.error).toEqual({
      code: 'insufficient_storage',
      message: 'the store is full; nothing was written; retry once space is freed',
      requestId: expect.any(String),
    });
    expect(refused!.headers['ratelimit-limit']).toBe('30000');
    // Nothing half-written: exactly the subscriptions that were answered 201.
    expect(await t.services.subscriptions.list(tenantId)).toHaveLength(accepted);

    // Reads still answer.
    const list = await t.http.get('/v1/tokens/registered').set('x-api-key', secret);
    expect(list.status).toBe(200);
    expect(list.body.subscriptions).toHaveLength(accepted);

    const health = await t.http.get('/healthz');
    expect(health.status).toBe(200);
    expect(health.headers['cache-control']).toBe('no-store');
    expect(health.body).toEqual({ status: 'degraded', instance: 'full-1', store: { kind, state: 'up', full: true }, redis: 'off' });

    // Room again: the next write succeeds and /healthz is ok once more.
    await makeRoom(t);
    const again = await t.http.post('/v1/tokens/register').set('x-api-key', secret).send({ address: anAddress() });
    expect(again.status).toBe(201);
    const healthy = await t.http.get('/healthz');
    expect(healthy.status).toBe(200);
    expect(healthy.body).toEqual({ status: 'ok', instance: 'full-1', store: { kind, state: 'up' }, redis: 'off' });
  });

  it('reports a full disk after a write failed with it, even when nothing else can show it', async () => {
    t = makeTestApp();
    const { secret } = t.makeKey({ plan: 'enterprise' });
    await fill(t);
    let status = 201;
    for (let i = 0; i < 5000 && status === 201; i++) {
      status = (await t.http.post('/v1/tokens/register').set('x-api-key', secret).send({ address: anAddress() })).status;
    }
    expect(status).toBe(507);
    // The store has room again (SQLite's page counts show it), but no write has succeeded yet:
    // the store is still reported full, as a full disk (which no pragma or query shows) would be.
    await makeRoom(t);
    expect((await t.http.get('/healthz')).body.status).toBe('degraded');
    expect((await t.http.post('/v1/tokens/register').set('x-api-key', secret).send({ address: anAddress() })).status).toBe(201);
    expect((await t.http.get('/healthz')).body.status).toBe('ok');
  });
});

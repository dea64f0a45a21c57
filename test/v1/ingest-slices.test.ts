/**
 * A large POST /v1/ingest on SQLite (docs/api.md, Ingest limits): written in slices of one open
 * transaction with the event loop running between them, and visible all at once: no request and
 * no other connection ever sees part of it. PostgreSQL writes a batch in one transaction of
 * 1,000-record slices that rolls back whole: test/engines/pg-ingest.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as tick } from 'node:timers/promises';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aMarket, aToken, aTrade } from '../helpers/builders.js';
import { openStore } from '../../src/store/sqlite/db.js';
import { WRITE_SLICE } from '../../src/store/sqlite/sliced-write.js';

let t: TestApp | undefined;
let dir: string | undefined;
afterEach(() => {
  t?.close();
  t = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

const post = (app: TestApp, secret: string, type: string, body: string) =>
  app.http.post('/v1/ingest').set('x-api-key', secret).set('Content-Type', type).send(body);

describe('a large POST /v1/ingest', () => {
  it('is written in slices that let the loop run, and is seen whole or not at all', async () => {
    dir = mkdtempSync(join(tmpdir(), 'slices-'));
    const path = join(dir, 'store.db');
    const app = (t = makeTestApp({ store: openStore(path) }));
    const tok = aToken();
    const m = aMarket(tok.address);
    app.ingest([tok, m]);
    const { secret } = app.makeKey({ plan: 'enterprise', scopes: ['read', 'ingest'] });
    const N = 12 * WRITE_SLICE + 7;
    const body = Array.from({ length: N }, (_, i) => JSON.stringify(aTrade(tok.address, { market: m.address, blockTime: 1_699_990_000 + i }))).join('\n');
    // Another connection (as another process would be) sees only what is committed.
    const other = new Database(path, { readonly: true });
    const count = other.prepare('SELECT count(*) FROM trades').pluck();

    let done = false;
    const ingest = post(app, secret, 'application/x-ndjson', body).then((r) => {
      done = true;
      return r;
    });
    while (app.store.settled() === null && !done) await tick();
    expect(done).toBe(false); // the batch is being written now

    const seenOutside: number[] = [];
    const healthDuringWrite: boolean[] = [];
    const health = app.http.get('/healthz').then((r) => {
      healthDuringWrite.push(app.store.settled() !== null);
      return r;
    });
    const candles = app.http.get(`/v1/token/${tok.address}/candles`).query({ resolution: '1D', to: 1_700_000_000, countback: 10 });
    // While the batch is open, the other connection sees none of it.
    while (app.store.settled() !== null) {
      seenOutside.push(count.get() as number);
      await new Promise((r) => setTimeout(r, 2));
    }
    const [res, h, c] = await Promise.all([ingest, health, candles]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ accepted: N, duplicates: 0 });
    expect(h.status).toBe(200);
    // /healthz was answered between two slices, while the batch was still open
    expect(healthDuringWrite).toEqual([true]);
    // the candles request waited for the commit: it shows the whole batch
    expect(c.body.candles.reduce((n: number, b: { v: number }) => n + b.v, 0)).toBe(N * 10);
    expect(seenOutside.length).toBeGreaterThan(1);
    expect(seenOutside.every((n) => n === 0)).toBe(true);
    expect(count.get()).toBe(N);
    other.close();
  }, 60_000);
});

/**
 * The webhook worker never reads the outbox inside a large ingest batch's open transaction
 * (docs/api.md, Ingest limits): its rows could belong to a batch that is then rolled back, so a
 * pass waits for the batch to commit.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as tick } from 'node:timers/promises';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aMarket, aToken, aTrade } from '../helpers/builders.js';
import { openStore } from '../../src/store/sqlite/db.js';
import { WRITE_SLICE } from '../../src/store/sqlite/sliced-write.js';
import { startWebhookWorker, type WebhookWorker } from '../../src/services/webhooks.js';
import { startReceiver, type Receiver } from './receiver.js';

let t: TestApp | undefined;
let worker: WebhookWorker | undefined;
let receiver: Receiver | undefined;
let dir: string | undefined;
afterEach(async () => {
  await worker?.stop();
  await receiver?.close();
  t?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  t = worker = receiver = dir = undefined;
});

describe('webhook worker and a sliced ingest batch', () => {
  it('delivers nothing of the batch while it is open, and all of its events once it commits', async () => {
    dir = mkdtempSync(join(tmpdir(), 'hook-batch-'));
    const app = (t = makeTestApp({ store: openStore(join(dir, 'store.db')) }));
    receiver = await startReceiver([204]);
    const tok = aToken();
    const m = aMarket(tok.address);
    app.ingest([tok, m]);
    const { secret } = app.makeKey({ plan: 'enterprise', scopes: ['read', 'manage', 'ingest'] });
    const reg = await app.http.post('/v1/tokens/register').set('x-api-key', secret).send({ address: tok.address, webhookUrl: receiver.url() });
    expect(reg.status).toBe(201);
    worker = startWebhookWorker({ services: app.services, store: app.store, clock: app.clock, config: app.config, loop: false });

    const N = 8 * WRITE_SLICE;
    const body = Array.from({ length: N }, (_, i) => JSON.stringify(aTrade(tok.address, { market: m.address, blockTime: 1_699_990_000 + i }))).join('\n');
    let done = false;
    const ingest = app.http
      .post('/v1/ingest')
      .set('x-api-key', secret)
      .set('Content-Type', 'application/x-ndjson')
      .send(body)
      .then((r) => {
        done = true;
        return r;
      });
    while (app.store.settled() === null && !done) await tick();
    expect(done).toBe(false); // the batch is open now

    const pass = worker.runOnce();
    let receivedWhileOpen = 0;
    while (app.store.settled() !== null) {
      receivedWhileOpen = Math.max(receivedWhileOpen, receiver.received.length);
      await tick();
    }
    expect((await ingest).status).toBe(200);
    expect(receivedWhileOpen).toBe(0);
    await pass;
    await worker.runOnce();
    const ids = new Set(receiver.received.map((r) => r.headers['svc-event-id']));
    const events = app.store.db.prepare('SELECT count(*) FROM events').pluck().get() as number;
    expect(events).toBeGreaterThan(1);
    expect(ids.size).toBe(events);
  }, 60_000);
});

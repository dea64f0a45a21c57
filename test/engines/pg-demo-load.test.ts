/**
 * Loading demo data into an empty PostgreSQL store with several instances starting at once
 * (docs/operations.md, Many instances: work done once): one loads under the `demoLoad` job lock
 * while the others wait for the `demo` meta row it writes last, then go on without loading.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/logger.js';
import { openPgStore, type PgStore } from '../../src/store/pg/pg-store.js';
import { createServices } from '../../src/services/index.js';
import { loadDemoIfEmpty } from '../../src/services/jobs.js';
import { DEMO_DEFAULTS } from '../../src/services/demo.js';
import { systemClock } from '../../src/domain/clock.js';
import { freshDatabase, type FreshDatabase } from './support.js';

let db: FreshDatabase | undefined;
const stores: PgStore[] = [];

afterAll(async () => {
  for (const s of stores) await s.close();
  await db?.drop();
});

/** An instance's parts, with the lines its logger wrote. */
async function instance(id: string) {
  const store = await openPgStore(db!.url, { instanceId: id });
  stores.push(store);
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  const config = { demoData: 'auto' as const, demoFeed: false, instanceId: id };
  const services = createServices({ store, clock: systemClock });
  return { deps: { store, services, clock: systemClock, config, logger: createLogger('info', sink, id), lockIntervalMs: 200 }, lines, services };
}

describe('demo data into an empty PostgreSQL store, two instances at once', () => {
  it('is loaded by one while the other waits, then found by both', async () => {
    db = await freshDatabase('demo_load');
    const [a, b] = await Promise.all([instance('load-a'), instance('load-b')]);
    const results = await Promise.all([loadDemoIfEmpty(a.deps), loadDemoIfEmpty(b.deps)]);
    const loaded = results.filter((r) => r !== null);
    expect(loaded).toHaveLength(1);
    expect(loaded[0]).toMatchObject({ tokens: DEMO_DEFAULTS.tokens });
    const waiter = results[0] === null ? a : b;
    expect(waiter.lines.join('')).toMatch(/waiting for another instance to load the demo data/);
    expect(await a.services.repos.stats.tokens()).toBe(DEMO_DEFAULTS.tokens);
    expect(await b.services.repos.meta.get('demo')).toBeDefined();
    // Once loaded, a later start does nothing.
    expect(await loadDemoIfEmpty(a.deps)).toBeNull();
  }, 120_000);
});

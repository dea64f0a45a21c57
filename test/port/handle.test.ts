/**
 * Port contract: the store handle (src/store/port/handle.ts): change listeners and the version,
 * the change an ingest announces, the exclusive gate and settled(), and closing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Change, StoreHandle } from '../../src/store/port/handle.js';
import { testEngine } from '../helpers/pg-test-store.js';
import { A, D, MA1, openPortStore, W1, type PortStore } from './fixture.js';

let t: PortStore;
let handle: StoreHandle;
beforeAll(async () => {
  t = await openPortStore();
  handle = t.store;
});
afterAll(async () => {
  await t.close();
});

describe('store handle', () => {
  it('is of the engine the suite runs on, open, answering, not full', () => {
    expect(handle.kind).toBe(testEngine());
    expect(handle.isOpen()).toBe(true);
    expect(handle.full).toBe(false);
    handle.checkExternalChanges();
  });

  it('notifyChange tells each listener once and moves the version by one; a removed listener hears nothing', () => {
    const heard: Change[] = [];
    const off = handle.onChange((c) => heard.push(c));
    const v = handle.version();
    const change: Change = { tokens: new Set([7]) };
    handle.notifyChange(change);
    expect(heard).toEqual([change]);
    expect(handle.version()).toBe(v + 1);
    off();
    handle.notifyChange({ tokens: 'all' });
    expect(heard).toHaveLength(1);
    expect(handle.version()).toBe(v + 2);
  });

  it('an ingest announces the tokens it touched after its commit', async () => {
    const heard: Change[] = [];
    const off = handle.onChange((c) => heard.push(c));
    const v = handle.version();
    await t.ingest([
      {
        type: 'trade',
        token: A,
        market: MA1,
        signature: 'portsig-handle',
        index: 0,
        blockTime: D + 300,
        side: 'sell',
        priceUsd: 2,
        amount: 10,
        quoteAmount: 0.2,
        volumeUsd: 20,
        wallet: W1,
      },
    ]);
    off();
    const local = heard.filter((c) => c.remote !== true);
    expect(local.map((c) => (c.tokens === 'all' ? 'all' : [...c.tokens]))).toEqual([[t.idA]]);
    expect(handle.version()).toBeGreaterThan(v);
  });

  it('exclusive runs its function and answers its value; settled() holds readers only while a gated write runs', async () => {
    expect(handle.settled()).toBeNull();
    let inside: Promise<void> | null | undefined;
    const value = await handle.exclusive(async () => {
      inside = handle.settled();
      return 42;
    });
    expect(value).toBe(42);
    // SQLite gates a write held open across awaits (one connection); PostgreSQL readers see commits only.
    expect(inside === null).toBe(testEngine() === 'postgres');
    expect(handle.settled()).toBeNull();
  });

  it('exclusive runs one write after another on a gated store', async () => {
    const order: string[] = [];
    const run = (name: string) =>
      handle.exclusive(async () => {
        order.push(`${name} start`);
        await new Promise((r) => setImmediate(r));
        order.push(`${name} end`);
      });
    await Promise.all([run('a'), run('b')]);
    expect(order).toEqual(testEngine() === 'sqlite' ? ['a start', 'a end', 'b start', 'b end'] : ['a start', 'b start', 'a end', 'b end']);
  });

  it('close ends a store: isOpen() turns false', async () => {
    const other = await openPortStore([]);
    expect(other.store.isOpen()).toBe(true);
    await other.close();
    expect(other.store.isOpen()).toBe(false);
  });
});

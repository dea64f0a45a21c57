/**
 * The async repo contract on SQLite (src/store/port/async.ts): asyncRepo() answers what the repo
 * answers, turns a statement's error into a rejected promise (never a throw at the call), and
 * runs inTransaction() as one gated write transaction held across awaits: committed when the
 * callback resolves, rolled back whole when it throws, readers told to wait meanwhile, and two
 * transactions one after the other.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAccountsRepo } from '../../src/store/sqlite/accounts-repo.js';
import { createTokensRepo } from '../../src/store/sqlite/tokens-repo.js';
import { asyncRepo, sqliteTransaction } from '../../src/store/port/async.js';
import { openStore, type Store } from '../../src/store/sqlite/db.js';

const key = (id: string, tenantId: string) => ({
  id,
  tenantId,
  name: null,
  hash: Buffer.from(id),
  prefix: 'p',
  last4: '0000',
  scopes: ['read'],
  createdAt: 1,
  expiresAt: null,
});

describe('asyncRepo on SQLite', () => {
  let store: Store;
  beforeEach(() => {
    store = openStore(':memory:', { backgroundCheckpoint: false });
  });
  afterEach(() => store.close());

  it('answers what the repo answers, and rejects where the repo throws', async () => {
    const repo = asyncRepo(createAccountsRepo(store.db), sqliteTransaction(store));
    await repo.insertTenant({ id: 't1', name: 'T', plan: 'free', email: null, createdAt: 5 });
    expect(await repo.tenant('t1')).toEqual({ id: 't1', name: 'T', plan: 'free', email: null, createdAt: 5 });
    expect(await repo.plan('free')).toEqual(createAccountsRepo(store.db).plan('free'));
    const refused = repo.insertKey(key('k1', 'nobody')); // no such tenant: a foreign key error
    expect(refused).toBeInstanceOf(Promise);
    await expect(refused).rejects.toThrow(/FOREIGN KEY/);
    expect(await asyncRepo(createTokensRepo(store.db)).byId(1)).toBeUndefined();
  });

  it('commits a transaction when its callback resolves and rolls all of it back when it throws', async () => {
    const repo = asyncRepo(createAccountsRepo(store.db), sqliteTransaction(store));
    await repo.insertTenant({ id: 't1', name: 'T', plan: 'free', email: null, createdAt: 0 });
    expect(
      await repo.inTransaction(async (tx) => {
        await tx.insertKey(key('k1', 't1'));
        expect(store.settled()).not.toBeNull(); // readers wait for the end of it
        return tx.countActiveKeys('t1');
      }),
    ).toBe(1);
    expect(store.settled()).toBeNull();
    await expect(
      repo.inTransaction(async (tx) => {
        await tx.insertKey(key('k2', 't1'));
        await tx.revoke('k1', 9);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect((await repo.keys('t1')).map((k) => [k.id, k.revokedAt])).toEqual([['k1', null]]);
    expect(store.db.inTransaction).toBe(false);
  });

  it('runs transactions one after the other, never one inside another', async () => {
    const repo = asyncRepo(createAccountsRepo(store.db), sqliteTransaction(store));
    await repo.insertTenant({ id: 't1', name: 'T', plan: 'free', email: null, createdAt: 0 });
    const order: string[] = [];
    const run = (id: string) =>
      repo.inTransaction(async (tx) => {
        order.push(`begin ${id}`);
        await new Promise((r) => setTimeout(r, 5));
        await tx.insertKey(key(id, 't1'));
        order.push(`end ${id}`);
      });
    await Promise.all([run('k1'), run('k2'), run('k3')]);
    expect(order).toEqual(['begin k1', 'end k1', 'begin k2', 'end k2', 'begin k3', 'end k3']);
    expect(await repo.countActiveKeys('t1')).toBe(3);
  });

  it('refuses to wrap a repo with its own transaction without the store transaction', () => {
    expect(() => asyncRepo(createAccountsRepo(store.db))).toThrow(/needs the store transaction/);
  });
});

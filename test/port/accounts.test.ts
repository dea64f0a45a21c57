/** Port contract: the accounts (tenants, plans, keys), sessions and sign-in counts repos. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { D, openPortStore, type PortStore } from './fixture.js';

let t: PortStore;
beforeAll(async () => {
  t = await openPortStore([]);
});
afterAll(async () => {
  await t.close();
});

const tenant = (id: string, createdAt: number, email: string | null = null) => ({ id, name: `Tenant ${id}`, plan: 'free', email, createdAt });
const key = (id: string, tenantId: string, createdAt: number) => ({
  id,
  tenantId,
  name: `key ${id}`,
  hash: Buffer.from(`hash-${id}`),
  prefix: `pfx_${id}`,
  last4: '1234',
  scopes: ['read', 'ingest'],
  createdAt,
  expiresAt: null,
});

describe('accounts', () => {
  it('plan reads a seeded plan, undefined for an unknown one', async () => {
    expect(await t.repos.accounts.plan('pro')).toEqual({ name: 'pro', requestsPerMinute: 3000, maxKeys: 20, maxSubscriptions: 500 });
    expect(await t.repos.accounts.plan('gold')).toBeUndefined();
  });

  it('tenants: insert, by id, by email, all in creation order, password and email', async () => {
    await t.repos.accounts.insertTenant(tenant('t2', D + 2, 'b@example.com'));
    await t.repos.accounts.insertTenant(tenant('t1', D + 1));
    expect(await t.repos.accounts.tenant('t2')).toEqual(tenant('t2', D + 2, 'b@example.com'));
    expect(await t.repos.accounts.tenant('none')).toBeUndefined();
    expect(await t.repos.accounts.tenantByEmail('b@example.com')).toEqual(tenant('t2', D + 2, 'b@example.com'));
    expect((await t.repos.accounts.tenants()).map((x) => x.id)).toEqual(['t1', 't2']);
    expect(await t.repos.accounts.passwordHash('t1')).toBeNull();
    expect(await t.repos.accounts.passwordHash('none')).toBeUndefined();
    expect(await t.repos.accounts.setPassword('t1', 'scrypt$x')).toBe(true);
    expect(await t.repos.accounts.setPassword('none', 'scrypt$x')).toBe(false);
    expect(await t.repos.accounts.passwordHash('t1')).toBe('scrypt$x');
    expect(await t.repos.accounts.setEmail('t1', 'a@example.com')).toBe(true);
    expect((await t.repos.accounts.tenantByEmail('a@example.com'))?.id).toBe('t1');
  });

  it('keys: insert, by id and hash, per tenant, revoke, expiry, touch, active count', async () => {
    await t.repos.accounts.insertTenant(tenant('tk', D));
    await t.repos.accounts.insertKey(key('k1', 'tk', D + 1));
    await t.repos.accounts.insertKey(key('k2', 'tk', D + 2));
    const k1 = { id: 'k1', tenantId: 'tk', name: 'key k1', prefix: 'pfx_k1', last4: '1234', scopes: ['read', 'ingest'], createdAt: D + 1 };
    expect(await t.repos.accounts.key('k1')).toEqual({ ...k1, lastUsedAt: null, expiresAt: null, revokedAt: null });
    expect((await t.repos.accounts.keyByHash(Buffer.from('hash-k2')))?.id).toBe('k2');
    expect(await t.repos.accounts.keyByHash(Buffer.from('nothing'))).toBeUndefined();
    expect(await t.repos.accounts.countActiveKeys('tk')).toBe(2);
    await t.repos.accounts.revoke('k1', D + 10);
    await t.repos.accounts.revoke('k1', D + 20);
    await t.repos.accounts.setExpiry('k2', D + 30);
    await t.repos.accounts.touch('k2', D + 5);
    expect(await t.repos.accounts.keys('tk')).toEqual([
      { ...k1, lastUsedAt: null, expiresAt: null, revokedAt: D + 10 },
      { ...k1, id: 'k2', name: 'key k2', prefix: 'pfx_k2', createdAt: D + 2, lastUsedAt: D + 5, expiresAt: D + 30, revokedAt: null },
    ]);
    expect(await t.repos.accounts.countActiveKeys('tk')).toBe(0);
  });
});

describe('accounts.inTransaction', () => {
  it('commits what its function wrote when it resolves, and nothing when it throws', async () => {
    const count = await t.repos.accounts.inTransaction(async (tx) => {
      await tx.insertTenant(tenant('tx1', D));
      await tx.insertKey(key('kx1', 'tx1', D));
      return tx.countActiveKeys('tx1');
    });
    expect(count).toBe(1);
    expect((await t.repos.accounts.tenant('tx1'))?.id).toBe('tx1');
    await expect(
      t.repos.accounts.inTransaction(async (tx) => {
        await tx.insertTenant(tenant('tx2', D));
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    expect(await t.repos.accounts.tenant('tx2')).toBeUndefined();
  });
});

describe('sessions', () => {
  it('insert, find, touch, remove, removeTenant and removeExpired', async () => {
    await t.repos.accounts.insertTenant(tenant('ts', D));
    const id = (n: number) => Buffer.from([n, 1, 2, 3]);
    await t.repos.sessions.insert({ idHash: id(1), tenantId: 'ts', now: D, expiresAt: D + 100, absoluteExpiresAt: D + 1000 });
    await t.repos.sessions.insert({ idHash: id(2), tenantId: 'ts', now: D, expiresAt: D + 50, absoluteExpiresAt: D + 1000 });
    await t.repos.sessions.insert({ idHash: id(3), tenantId: 'ts', now: D, expiresAt: D + 500, absoluteExpiresAt: D + 1000 });
    expect(await t.repos.sessions.find(id(1))).toEqual({ tenantId: 'ts', createdAt: D, lastSeenAt: D, expiresAt: D + 100, absoluteExpiresAt: D + 1000 });
    await t.repos.sessions.touch(id(1), D + 10, D + 110);
    expect(await t.repos.sessions.find(id(1))).toMatchObject({ lastSeenAt: D + 10, expiresAt: D + 110 });
    await t.repos.sessions.removeExpired(D + 60);
    expect(await t.repos.sessions.find(id(2))).toBeUndefined();
    await t.repos.sessions.remove(id(1));
    expect(await t.repos.sessions.find(id(1))).toBeUndefined();
    expect(await t.repos.sessions.find(id(3))).toMatchObject({ tenantId: 'ts' });
    await t.repos.sessions.removeTenant('ts');
    expect(await t.repos.sessions.find(id(3))).toBeUndefined();
  });
});

describe('signInCounts', () => {
  it('add, recent, count, remove, clear and prune per bucket', async () => {
    const first = await t.repos.signInCounts.add('ip:1', D + 1);
    await t.repos.signInCounts.add('ip:1', D + 2);
    await t.repos.signInCounts.add('ip:1', D + 3);
    await t.repos.signInCounts.add('ip:2', D + 3);
    expect(await t.repos.signInCounts.recent('ip:1', D, 2)).toEqual([D + 3, D + 2]);
    expect(await t.repos.signInCounts.count('ip:1', D + 1, 10)).toBe(2);
    expect(await t.repos.signInCounts.count('ip:1', D, 2)).toBe(2);
    await t.repos.signInCounts.remove(first);
    expect(await t.repos.signInCounts.recent('ip:1', D, 10)).toEqual([D + 3, D + 2]);
    await t.repos.signInCounts.prune(D + 2);
    expect(await t.repos.signInCounts.recent('ip:1', D, 10)).toEqual([D + 3]);
    await t.repos.signInCounts.clear('ip:1');
    expect(await t.repos.signInCounts.count('ip:1', D, 10)).toBe(0);
    expect(await t.repos.signInCounts.count('ip:2', D, 10)).toBe(1);
  });
});

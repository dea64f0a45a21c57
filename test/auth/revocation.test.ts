/**
 * Revocation takes effect on the very next request, even with the key's lookup cached, whether
 * this process revoked it or another one did (the CLI: a second connection to the same file).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { openStore, type Store } from '../../src/store/sqlite/db.js';
import { createServices } from '../../src/services/index.js';
import { ROUTES, expectUnauthorized } from './support.js';

let t: TestApp;
let dir: string;
const extra: Array<{ close(): void }> = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'auth-revoke-'));
});
afterEach(() => {
  for (const c of extra.splice(0)) c.close();
  t?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** An app on a file store, and a second store (another "process") on the same file. */
function onFile(): { other: Store } {
  const path = join(dir, 'tokens.db');
  t = makeTestApp({ store: openStore(path) });
  const other = openStore(path);
  extra.push(other);
  return { other };
}

async function warm(secret: string): Promise<void> {
  for (const path of [ROUTES.keyed, ROUTES.public, ROUTES.keyed]) {
    expect((await t.http.get(path).set('x-api-key', secret)).status).not.toBe(401);
  }
}

describe('revocation', () => {
  it('stops a cached key on the next request when revoked through the API', async () => {
    t = makeTestApp();
    const admin = t.makeKey();
    const k = await t.services.accounts.createKey(admin.tenantId);
    await warm(k.secret);
    expect((await t.http.delete(`/v1/keys/${k.key.id}`).set('x-api-key', admin.secret)).status).toBe(200);
    expectUnauthorized(await t.http.get(ROUTES.public).set('x-api-key', k.secret), ROUTES.public);
  });

  it('stops a cached key on the next request when revoked through the service (dashboard)', async () => {
    t = makeTestApp();
    const k = t.makeKey();
    await warm(k.secret);
    await t.services.accounts.revokeKey(k.keyId, k.tenantId);
    expectUnauthorized(await t.http.get(ROUTES.keyed).set('x-api-key', k.secret), ROUTES.keyed);
  });

  it('stops a cached key on the next request when another process revokes it (second openStore)', async () => {
    const { other } = onFile();
    const k = t.makeKey();
    await warm(k.secret);
    const cli = createServices({ store: other, clock: t.clock });
    await cli.accounts.revokeKey(k.keyId);
    for (const path of [ROUTES.public, ROUTES.keyed]) expectUnauthorized(await t.http.get(path).set('x-api-key', k.secret), path);
  });

  it('stops a cached key on the next request when a raw second connection revokes it', async () => {
    const path = join(dir, 'tokens.db');
    t = makeTestApp({ store: openStore(path) });
    const k = t.makeKey();
    await warm(k.secret);
    const raw = new Database(path);
    extra.push(raw);
    raw.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ?').run(t.clock.seconds(), k.keyId);
    expectUnauthorized(await t.http.get(ROUTES.udf).set('x-api-key', k.secret), ROUTES.udf);
  });

  it('ends a cached key at once when another process rotates it with grace 0', async () => {
    const { other } = onFile();
    const k = t.makeKey();
    await warm(k.secret);
    const made = await createServices({ store: other, clock: t.clock }).accounts.rotateKey(k.tenantId, k.keyId, 0);
    expectUnauthorized(await t.http.get(ROUTES.keyed).set('x-api-key', k.secret), ROUTES.keyed);
    expect((await t.http.get(ROUTES.keyed).set('x-api-key', made.secret)).status).toBe(200);
  });

  it('sees a key created by another process at once', async () => {
    const { other } = onFile();
    const tenant = await t.services.accounts.createTenant({ name: 'x', plan: 'free' });
    expect((await t.http.get(ROUTES.keyed)).status).toBe(401); // the app is running
    const made = await createServices({ store: other, clock: t.clock }).accounts.createKey(tenant.id);
    expect((await t.http.get(ROUTES.keyed).set('x-api-key', made.secret)).status).toBe(200);
  });
});

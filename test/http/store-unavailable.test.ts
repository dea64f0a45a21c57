/**
 * A store that cannot be used now answers 503 `unavailable` with Retry-After (docs/api.md,
 * Conventions): SQLite's write lock held by another connection past the busy timeout (a real
 * second connection on the same file), and the errors of an unreachable PostgreSQL, which
 * `isUnavailable` recognises. Nothing is written, and reads keep working meanwhile.
 */
import { afterEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError, toApiError } from '../../src/errors.js';
import { fromServiceError } from '../../src/http/service-errors.js';
import { openStore } from '../../src/store/sqlite/db.js';
import { anAddress } from '../helpers/builders.js';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';

let t: TestApp | undefined;
let dir: string | undefined;
afterEach(() => {
  t?.close();
  t = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

const codeError = (code: string, message = 'failed') => Object.assign(new Error(message), { code });

describe('a store that cannot be used now', () => {
  it('answers a write 503 unavailable with Retry-After while another process holds the write lock, writing nothing', async () => {
    dir = mkdtempSync(join(tmpdir(), 'unavailable-'));
    const path = join(dir, 'store.db');
    t = makeTestApp({ env: { DATABASE_PATH: path }, store: openStore(path, { busyTimeoutMs: 50 }) });
    const { secret } = t.makeKey({ plan: 'enterprise' });
    const other = new Database(path);
    other.pragma('busy_timeout = 0');
    other.exec('BEGIN IMMEDIATE');
    try {
      const res = await t.http.post('/v1/tokens/register').set('x-api-key', secret).set('X-Request-Id', 'busy-1').send({ address: anAddress() });
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('1');
      expect(res.body).toEqual({
        error: { code: 'unavailable', message: 'the store cannot be reached right now; nothing was written; retry shortly', requestId: 'busy-1' },
      });
      // Reads do not need the write lock.
      expect((await t.http.get('/v1/tokens/registered').set('x-api-key', secret)).status).toBe(200);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    const list = await t.http.get('/v1/tokens/registered').set('x-api-key', secret);
    expect(list.body.subscriptions).toEqual([]);
    expect((await t.http.post('/v1/tokens/register').set('x-api-key', secret).send({ address: anAddress() })).status).toBe(201);
  });

  it('maps the errors of an unreachable PostgreSQL to 503 unavailable, and leaves bad statements alone', () => {
    for (const err of [
      codeError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'),
      codeError('57P01', 'terminating connection due to administrator command'),
      codeError('08006', 'connection failure'),
      codeError('53300', 'too many clients already'),
      new Error('Connection terminated unexpectedly'),
      codeError('SQLITE_BUSY', 'database is locked'),
    ]) {
      const e = toApiError(fromServiceError(err));
      expect([e.status, e.code, e.headers['Retry-After']]).toEqual([503, 'unavailable', '1']);
    }
    for (const err of [codeError('42601', 'syntax error'), codeError('23505', 'duplicate key'), new Error('boom')]) {
      expect(toApiError(fromServiceError(err)).status).toBe(500);
    }
  });

  it('gives Retry-After in whole seconds, at least 1', async () => {
    const { errors } = await import('../../src/errors.js');
    expect(errors.unavailable(0).headers['Retry-After']).toBe('1');
    expect(errors.unavailable(2.2).headers['Retry-After']).toBe('3');
    expect(errors.unavailable()).toBeInstanceOf(ApiError);
  });
});

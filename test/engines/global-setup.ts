/**
 * Runs once before the engine tests: both URLs must be set and both engines must answer, or the
 * whole run fails at once with one line saying what to start (scripts/engines.sh start), instead
 * of every test failing on its own connection error.
 */
import pg from 'pg';
import { createClient } from 'redis';
import { databaseUrl, redisUrl } from './support.js';

export default async function setup(): Promise<void> {
  const db = new pg.Client({ connectionString: databaseUrl(), connectionTimeoutMillis: 5000 });
  try {
    await db.connect();
    const v = await db.query<{ v: string }>(`SELECT current_setting('server_version_num') AS v`);
    if (Number(v.rows[0]?.v) < 150000) throw new Error(`PostgreSQL 15 or later is needed, found ${v.rows[0]?.v}`);
  } catch (err) {
    throw new Error(`PostgreSQL at TEST_DATABASE_URL does not answer: ${(err as Error).message}`, { cause: err });
  } finally {
    await db.end().catch(() => undefined);
  }
  const redis = createClient({ url: redisUrl(), socket: { connectTimeout: 5000, reconnectStrategy: false } });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    throw new Error(`Redis at TEST_REDIS_URL does not answer: ${(err as Error).message}`, { cause: err });
  } finally {
    if (redis.isOpen) await redis.quit();
  }
}

/**
 * The global setup of `npm run test:postgres`: one migrated template database for the whole run,
 * so each test store is a copy of it (CREATE DATABASE ... TEMPLATE, a fraction of a second)
 * instead of a new database migrated from nothing (about 1.5 s on a loaded machine, and the
 * property tests make many). The forked test processes find it in TEST_PG_TEMPLATE; without it
 * (a single file run with STORE=postgres) each store is migrated on its own.
 */
import { randomBytes } from 'node:crypto';
import { migratePgUrl } from '../../src/store/pg/migrate.js';
import { admin } from './pg-test-store.js';

export default async function setup(): Promise<() => Promise<void>> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('npm run test:postgres needs TEST_DATABASE_URL (scripts/engines.sh start prints it)');
  const name = `test_template_${process.pid}_${randomBytes(4).toString('hex')}`;
  await admin(adminUrl, (c) => c.query(`CREATE DATABASE "${name}"`));
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  await migratePgUrl(u.toString());
  process.env.TEST_PG_TEMPLATE = name;
  return async () => {
    await admin(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
  };
}

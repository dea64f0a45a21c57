/**
 * Work done once on PostgreSQL (docs/operations.md, Many instances): two server processes
 * started together on one fresh database load the demo data once (one loads, the other waits);
 * the demo feed and event pruning each run on exactly one of them (its job lock), and when that
 * process is killed (SIGKILL: no clean stop) they move to the other, which goes on feeding.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { JOB_LOCK_CLASS, JOBS } from '../../src/store/pg/job-lock.js';
import { DEMO_DEFAULTS } from '../../src/services/demo.js';
import { freshDatabase, type FreshDatabase } from './support.js';
import { startServer, until, type Instance } from './instances.js';

let db: FreshDatabase;
let pool: pg.Pool;
let a: Instance;
let b: Instance;

/** The instance holding a job's lock now (its session's application_name names it), or null. */
async function holder(job: keyof typeof JOBS): Promise<string | null> {
  const { rows } = await pool.query<{ name: string }>(
    `SELECT a.application_name AS name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
     WHERE l.locktype = 'advisory' AND l.granted AND l.classid = $1 AND l.objid = $2 AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    [JOB_LOCK_CLASS, JOBS[job]],
  );
  expect(rows.length).toBeLessThanOrEqual(1);
  return rows[0]?.name.split(' ')[0] ?? null;
}

const maxTradeId = async (): Promise<number> => (await pool.query<{ n: number }>('SELECT coalesce(max(id), 0)::int AS n FROM trades')).rows[0]!.n;

beforeAll(async () => {
  db = await freshDatabase('jobs');
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
  const env = { DATABASE_URL: db.url, DEMO_DATA: 'auto', DEMO_FEED: 'on' };
  // They listen once the demo data is in: on a loaded 2-core machine that took over a minute.
  [a, b] = await Promise.all([startServer('jobs-a', env, 170_000), startServer('jobs-b', env, 170_000)]);
}, 180_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await pool?.end();
  await db?.drop();
});

describe('jobs on two instances of one PostgreSQL database', () => {
  it('loads the demo data once', async () => {
    const loaded = [a, b].filter((i) => /loaded demo data into the empty store/.test(i.stderr()));
    expect(loaded).toHaveLength(1);
    const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM tokens WHERE is_demo = 1');
    expect(rows[0]!.n).toBe(DEMO_DEFAULTS.tokens);
    expect((await pool.query(`SELECT value FROM meta WHERE key = 'demo'`)).rows).toHaveLength(1);
  });

  it('runs the demo feed and the pruning on one instance, and moves them when it is killed', async () => {
    const feeder = await until(
      () => holder('demoFeed'),
      (h) => h !== null,
      'an instance holds the demo feed',
    );
    expect(['jobs-a', 'jobs-b']).toContain(feeder);
    const pruner = await until(
      () => holder('pruneEvents'),
      (h) => h !== null,
      'an instance holds the pruning',
    );
    expect(['jobs-a', 'jobs-b']).toContain(pruner);
    const fed = await maxTradeId();
    await until(maxTradeId, (n) => n > fed, 'the feed adds trades');

    const [gone, other] = feeder === 'jobs-a' ? [a, b] : [b, a];
    gone.child.kill('SIGKILL');
    await gone.exit;
    expect(
      await until(
        () => holder('demoFeed'),
        (h) => h === other.id,
        `${other.id} takes the demo feed`,
        800,
      ),
    ).toBe(other.id);
    expect(
      await until(
        () => holder('pruneEvents'),
        (h) => h === other.id,
        `${other.id} takes the pruning`,
        800,
      ),
    ).toBe(other.id);
    const moved = await maxTradeId();
    await until(maxTradeId, (n) => n > moved, `${other.id} goes on feeding`);
    expect(other.stderr()).toMatch(/this instance runs the demoFeed job/);
  });
});

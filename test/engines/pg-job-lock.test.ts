/**
 * Work done once: a job's advisory lock is held by exactly one of several instances, and moves to
 * another when its holder stops, loses its session, or its process is killed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import pg from 'pg';
import { holdJobLock, JOB_LOCK_CLASS, JOBS, type JobLock } from '../../src/store/pg/job-lock.js';
import { freshDatabase, type FreshDatabase } from './support.js';

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting until ${what}`);
}

describe('job locks', () => {
  let db: FreshDatabase;
  let admin: pg.Client;
  const locks: JobLock[] = [];
  const hold = (instanceId: string) => {
    const l = holdJobLock({ url: db.url, job: 'demoFeed', instanceId, intervalMs: 100 });
    locks.push(l);
    return l;
  };
  /** Sessions holding the demo feed's lock, by application_name. */
  const holders = async (): Promise<string[]> =>
    (
      await admin.query<{ app: string }>(
        `SELECT a.application_name AS app FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
         WHERE l.locktype = 'advisory' AND l.granted AND l.classid = $1::oid AND l.objid = $2::oid AND l.objsubid = 2
           AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        [JOB_LOCK_CLASS, JOBS.demoFeed],
      )
    ).rows.map((r) => r.app);

  beforeAll(async () => {
    db = await freshDatabase('jobs');
    admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
  });
  afterAll(async () => {
    for (const l of locks) await l.stop();
    await admin?.end();
    await db?.drop();
  });

  it('is held by exactly one instance, and moves when the holder stops or loses its session', async () => {
    const a = hold('alpha');
    const b = hold('beta');
    await until(() => a.held() || b.held(), 'one instance holds the job');
    // Several more rounds of trying change nothing.
    await new Promise((r) => setTimeout(r, 400));
    expect([a.held(), b.held()].filter(Boolean)).toHaveLength(1);
    const [first, second] = a.held() ? [a, b] : [b, a];
    expect(await holders()).toEqual([a.held() ? 'alpha job demoFeed' : 'beta job demoFeed']);

    await first.stop();
    await until(() => second.held(), 'the other instance takes the job');
    expect(first.held()).toBe(false);

    // The holder's session is ended by the server (as a restart or a network cut does).
    const c = hold('gamma');
    const name = second === a ? 'alpha job demoFeed' : 'beta job demoFeed';
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [name]);
    await until(() => c.held() || second.held(), 'someone holds the job again');
    await until(async () => (await holders()).length === 1 && [c.held(), second.held()].filter(Boolean).length === 1, 'exactly one holder');
  });

  it('moves when the holding process is killed', async () => {
    for (const l of locks.splice(0)) await l.stop();
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/engines/hold-job-child.ts', db.url, 'child'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    await until(() => out.includes('held'), 'the child holds the job');
    const here = hold('survivor');
    await new Promise((r) => setTimeout(r, 300));
    expect(here.held()).toBe(false);
    expect(await holders()).toEqual(['child job demoFeed']);
    child.kill('SIGKILL');
    await until(() => here.held(), 'the surviving instance takes the job');
    expect(await holders()).toEqual(['survivor job demoFeed']);
  });
});

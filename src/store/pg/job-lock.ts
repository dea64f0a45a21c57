/**
 * Work done by one instance at a time (docs/operations.md, Many instances): the demo feed, event
 * pruning, loading demo data into an empty store. Each job is a PostgreSQL advisory lock held by
 * a session of its own: the instance whose session holds it runs the job; the others try again
 * every `intervalMs`. The lock goes when its holder stops (unlocked at once), when its process
 * dies (the server ends the session as the socket closes), or when its machine or network dies
 * (the session's TCP keepalives, set below, end it within about 8 s), so the job moves to
 * another instance within `intervalMs` after that: within 10 s with the defaults.
 */
import type { Job, JobLock } from '../port/engine.js';
import pg from 'pg';

/** The first half of every job lock's key (the two-int form, apart from the migration lock's bigint). */
export const JOB_LOCK_CLASS = 0x746b6e73; // 'tkns'

/** Each job's lock number; a new job takes a new number, never a reused one. */
export const JOBS: { readonly [J in Job]: number } = { demoLoad: 1, demoFeed: 2, pruneEvents: 3, indexer: 4 };
// The jobs and the lock's contract are the port's (src/store/port/engine.ts), named here too.
export type { Job, JobLock };

export type JobLockOptions = {
  url: string;
  job: Job;
  /** The instance's name, shown as the session's application_name. */
  instanceId: string;
  /** How often a waiting instance tries, and a holder checks its session (default 2000 ms). */
  intervalMs?: number;
  /** Told when this instance gains (true) or loses (false) the job. */
  onChange?: (held: boolean) => void;
};

export function holdJobLock(opts: JobLockOptions): JobLock {
  const intervalMs = opts.intervalMs ?? 2000;
  const objId = JOBS[opts.job];
  let client: pg.Client | null = null;
  let held = false;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();

  const setHeld = (next: boolean) => {
    if (next === held) return;
    held = next;
    opts.onChange?.(next);
  };

  const drop = (c: pg.Client) => {
    if (client !== c) return;
    client = null;
    setHeld(false);
    c.end().catch(() => undefined);
  };

  const connect = async (): Promise<pg.Client> => {
    const c = new pg.Client({
      connectionString: opts.url,
      application_name: `${opts.instanceId.slice(0, 40)} job ${opts.job}`,
      connectionTimeoutMillis: intervalMs,
      keepAlive: true,
      keepAliveInitialDelayMillis: 1000,
    });
    c.on('error', () => drop(c));
    c.on('end', () => drop(c));
    try {
      await c.connect();
      // The server ends the session (and frees the lock) when this machine stops answering.
      await c.query('SET tcp_keepalives_idle = 5; SET tcp_keepalives_interval = 1; SET tcp_keepalives_count = 3');
    } catch (err) {
      await c.end().catch(() => undefined);
      throw err;
    }
    return c;
  };

  const tick = async (): Promise<void> => {
    try {
      if (client === null) client = await connect();
      const c = client;
      if (held) await c.query('SELECT 1');
      else {
        const r = await c.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [JOB_LOCK_CLASS, objId]);
        if (stopped) return;
        setHeld(r.rows[0]?.ok === true);
      }
    } catch {
      if (client !== null) drop(client);
    }
  };

  const loop = () => {
    if (stopped) return;
    running = tick().finally(() => {
      if (!stopped) timer = setTimeout(loop, intervalMs);
    });
  };
  loop();

  return {
    held: () => held,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
      const c = client;
      client = null;
      if (c === null) return;
      if (held) await c.query('SELECT pg_advisory_unlock($1, $2)', [JOB_LOCK_CLASS, objId]).catch(() => undefined);
      setHeld(false);
      await c.end().catch(() => undefined);
    },
  };
}

/**
 * Work one instance does for the whole deployment (docs/operations.md, Many instances: work done
 * once): loading demo data into an empty store, the demo feed and the pruning of old events. On
 * SQLite there is one instance, and each simply runs here. On PostgreSQL each runs under its job
 * lock (src/store/pg/job-lock.ts), so exactly one instance runs it and it moves to another within
 * 10 s when that one stops or dies; the demo load is done by the lock's holder while the other
 * instances wait for the `demo` meta row it writes last.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { AnyStore } from '../open-store.js';
import type { Clock } from '../domain/clock.js';
import { holdJobLock, type Job, type JobLock } from '../store/pg/job-lock.js';
import { defaultDemoOptions, loadDemo, startDemoFeed, type DemoCounts } from './demo.js';
import type { Services } from './index.js';

export type JobsDeps = {
  store: AnyStore;
  services: Services;
  clock: Clock;
  config: { demoData: 'auto' | 'off'; demoFeed: boolean; instanceId: string };
  logger: Logger;
  /** How often a waiting instance tries a job lock (default 2000 ms: a job moves within 10 s). */
  lockIntervalMs?: number;
};

/** How often an instance waiting for another's demo load looks whether it is done. */
const DEMO_WAIT_MS = 250;

/**
 * Loads the demo data set when the store is empty and DEMO_DATA is auto; on PostgreSQL, one
 * instance loads while the others wait for it. Resolves to what was loaded here, or null.
 */
export async function loadDemoIfEmpty(deps: JobsDeps): Promise<DemoCounts | null> {
  const { store, services, config, logger } = deps;
  if (config.demoData !== 'auto' || (await services.repos.stats.tokens()) > 0) return null;
  const load = async (): Promise<DemoCounts> => {
    logger.info('loading the demo data set into the empty store');
    const t0 = Date.now();
    const counts = await loadDemo(services, defaultDemoOptions(deps.clock));
    logger.info({ ...counts, ms: Date.now() - t0 }, 'loaded demo data into the empty store');
    return counts;
  };
  if (store.kind === 'sqlite') return load();

  const { meta, stats, demo } = services.repos;
  const lock = holdJobLock({ url: store.url, job: 'demoLoad', instanceId: config.instanceId, intervalMs: deps.lockIntervalMs });
  try {
    for (let said = false; ; said = true) {
      // The holder writes the `demo` row last: once it is there, the set is whole.
      if ((await meta.get('demo')) !== undefined) return null;
      if (lock.held()) {
        // Empty, or the demo tokens of a holder that died mid-load (ingest is idempotent): load.
        const needed = (await stats.tokens()) === 0 || (await demo.holdsOnlyDemo());
        return needed ? await load() : null;
      }
      if (!said) logger.info('waiting for another instance to load the demo data');
      await sleep(DEMO_WAIT_MS);
    }
  } finally {
    await lock.stop();
  }
}

export type Jobs = {
  /** Whether this instance prunes old events now (the webhook worker asks before each prune). */
  prunes(): boolean;
  stop(): Promise<void>;
};

/** Starts the demo feed (DEMO_FEED=on) and the pruning job: here, or under their locks on PostgreSQL. */
export function startJobs(deps: JobsDeps): Jobs {
  const { store, services, config, logger, clock } = deps;
  const startFeed = () => startDemoFeed({ ...services, clock }, { onStop: (reason) => logger.info({ reason }, `demo feed stopped: ${reason}`) });
  if (store.kind === 'sqlite') {
    const stopFeed = config.demoFeed ? startFeed() : () => {};
    return {
      prunes: () => true,
      async stop() {
        stopFeed();
      },
    };
  }

  const locks: JobLock[] = [];
  const hold = (job: Job, onChange: (held: boolean) => void): JobLock => {
    const lock = holdJobLock({
      url: store.url,
      job,
      instanceId: config.instanceId,
      intervalMs: deps.lockIntervalMs,
      onChange: (held) => {
        logger.info({ job, held }, held ? `this instance runs the ${job} job` : `this instance gave up the ${job} job`);
        onChange(held);
      },
    });
    locks.push(lock);
    return lock;
  };
  let stopFeed: (() => void) | null = null;
  if (config.demoFeed) {
    hold('demoFeed', (held) => {
      stopFeed?.();
      stopFeed = held ? startFeed() : null;
    });
  }
  const prune = hold('pruneEvents', () => undefined);
  return {
    prunes: () => prune.held(),
    async stop() {
      stopFeed?.();
      stopFeed = null;
      await Promise.all(locks.map((l) => l.stop()));
    },
  };
}

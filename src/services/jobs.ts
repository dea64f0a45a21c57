/**
 * Work one instance does for the whole deployment (docs/operations.md, Many instances: work done
 * once): loading demo data into an empty store, the demo feed, the pruning of old events and
 * the chain indexer (INDEXER_CONFIG; docs/indexer.md). On
 * SQLite there is one instance, and each simply runs here. On PostgreSQL each runs under its job
 * lock (its engine's jobLock: src/store/pg/job-lock.ts), so exactly one instance runs it and it moves to another within
 * 10 s when that one stops or dies; the demo load is done by the lock's holder while the other
 * instances wait for the `demo` meta row it writes last.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { AnyStore } from '../open-store.js';
import type { Clock } from '../domain/clock.js';
import type { Job, JobLock } from '../store/port/engine.js';
import { defaultDemoOptions, loadDemo, startDemoFeed, type DemoCounts } from './demo.js';
import { startDemoPrune } from './demo-prune.js';
import type { Services } from './index.js';
import type { IndexerConfig } from '../indexer/evm/config.js';
import type { IndexerHandle } from '../indexer/evm/run.js';

export type JobsDeps = {
  store: AnyStore;
  services: Services;
  clock: Clock;
  config: { demoData: 'auto' | 'off'; demoFeed: boolean; instanceId: string };
  logger: Logger;
  /** How often a waiting instance tries a job lock (default 2000 ms: a job moves within 10 s). */
  lockIntervalMs?: number;
  /** The checked INDEXER_CONFIG file, or none. */
  indexer?: IndexerConfig | null;
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
  // An engine without job locks has one instance: it loads at once.
  const { engine } = services;
  if (engine.jobLock === undefined) return load();

  const { meta, stats, demo } = services.repos;
  const lock = engine.jobLock(store, { job: 'demoLoad', instanceId: config.instanceId, intervalMs: deps.lockIntervalMs });
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

/**
 * Starts the chain indexer on the services' store and shows it on /healthz; answers how to stop
 * it. An indexer that fails for good is logged by its chain and shows as stopped.
 */
function runIndexer(deps: JobsDeps, config: IndexerConfig): () => Promise<void> {
  const { services, logger } = deps;
  // Loaded only when configured: viem and the indexer cost start-up time a server without one
  // should not pay.
  const started: Promise<IndexerHandle | null> = import('../indexer/evm/run.js').then(
    ({ startIndexer }) => {
      const handle = startIndexer({ config, services, log: logger.child({ job: 'indexer' }) });
      services.indexers.attach(() => handle.status());
      return handle;
    },
    (err: unknown) => {
      logger.error({ err }, 'the indexer could not be loaded');
      return null;
    },
  );
  return async () => {
    const handle = await started;
    await handle?.stop();
    services.indexers.attach(null);
  };
}

/** Starts the demo feed (DEMO_FEED=on), the pruning job and the indexer: here, or under their locks on PostgreSQL. */
export function startJobs(deps: JobsDeps): Jobs {
  const { store, services, config, logger, clock } = deps;
  const indexer = deps.indexer ?? null;
  if (indexer !== null) services.indexers.configure(indexer.chains.map((c) => c.chain));
  // The feed and the pruning that bounds what it keeps run together (README, Demo data).
  const startFeed = () => {
    const stopFeed = startDemoFeed({ ...services, clock }, { onStop: (reason) => logger.info({ reason }, `demo feed stopped: ${reason}`) });
    const stopPrune = startDemoPrune(
      { store, repos: services.repos, clock },
      {
        onPruned: (trades) => logger.info({ trades }, 'pruned the demo trades older than the demo window'),
        onError: (err) => logger.warn({ err }, 'could not prune the demo trades older than the demo window; tried again in 10 minutes'),
      },
    );
    return () => {
      stopFeed();
      stopPrune();
    };
  };
  const { engine } = services;
  if (engine.jobLock === undefined) {
    const stopFeed = config.demoFeed ? startFeed() : () => {};
    const stopIndexer = indexer !== null ? runIndexer(deps, indexer) : async () => {};
    return {
      prunes: () => true,
      async stop() {
        stopFeed();
        await stopIndexer();
      },
    };
  }

  const locks: JobLock[] = [];
  const jobLock = engine.jobLock.bind(engine);
  const hold = (job: Job, onChange: (held: boolean) => void): JobLock => {
    const lock = jobLock(store, {
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
  let stopIndexer: (() => Promise<void>) | null = null;
  if (indexer !== null) {
    hold('indexer', (held) => {
      // Stopping and starting are chained: the next holder starts only after this one stopped.
      const stopping = stopIndexer?.();
      stopIndexer = null;
      if (held) {
        void Promise.resolve(stopping).then(() => {
          stopIndexer = runIndexer(deps, indexer);
        });
      }
    });
  }
  return {
    prunes: () => prune.held(),
    async stop() {
      await stopIndexer?.();
      stopIndexer = null;
      stopFeed?.();
      stopFeed = null;
      await Promise.all(locks.map((l) => l.stop()));
    },
  };
}

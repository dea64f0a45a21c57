/**
 * The service's entry point: loadConfig -> open the store (PostgreSQL with DATABASE_URL, else
 * the SQLite file; migrated) -> demo data into an empty store -> createApp(deps).listen.
 * SIGTERM/SIGINT stop taking connections, let the requests in flight finish, close the store and
 * exit 0.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { pathToFileURL } from 'node:url';
import { ConfigError, loadConfig, type Config } from './config.js';
import { SchemaTooNewError } from './store/port/engine.js';
import { openConfiguredStore, type AnyStore } from './open-store.js';
import { createApp, type App } from './app.js';
import { gracefulClose } from './http/graceful-close.js';
import { attachStream } from './http/stream.js';
import { createLimitedServer, DEFAULT_SERVER_LIMITS, type ServerLimits } from './http/connection-limits.js';
import { createLogger } from './logger.js';
import { claimDefaultChain, createServices, type Services } from './services/index.js';
import { loadDemoIfEmpty, startJobs } from './services/jobs.js';
import { startWebhookWorker } from './services/webhooks.js';
import { systemClock, type Clock } from './domain/clock.js';
import { bannerText, startUrls } from './start-banner.js';
import { readIndexerFile } from './indexer/evm/config-file.js';
import { warmDocsFiles } from './http/operations.js';

/** How long stop() waits for connections to finish before cutting them. */
const DRAIN_TIMEOUT_MS = 10_000;

export type Running = {
  server: Server;
  store: AnyStore;
  config: Config;
  services: Services;
  logger: Logger;
  /** Stops the service; `reason` (the signal) goes in the log lines that say so. */
  stop(reason?: string): Promise<void>;
};

/**
 * Starts the service; resolves once it listens. `opts.extend` may append middleware to the app
 * before it listens (the benchmark adds its baseline route this way); `opts.limits` overrides the
 * server's timeouts (tests use short ones; the defaults are the README's).
 */
export async function start(
  env: Record<string, string | undefined> = process.env,
  clock: Clock = systemClock,
  opts: { extend?(app: App): void; limits?: Partial<Omit<ServerLimits, 'maxConnectionsPerIp'>> } = {},
): Promise<Running> {
  const config = loadConfig(env);
  // A bad indexer file refuses start-up with one line naming the field, before anything opens.
  const indexer =
    config.indexerConfig === null ? null : readIndexerFile(config.indexerConfig, config.chains.list, (m) => new ConfigError(`invalid INDEXER_CONFIG: ${m}`));
  const logger = createLogger(config.logLevel, undefined, config.instanceId);
  const store = await openConfiguredStore(config);
  if (store.kind === 'postgres' && store.migrated !== null && store.migrated.applied.length > 0) {
    logger.info({ from: store.migrated.from, to: store.migrated.to }, 'migrated the PostgreSQL store');
  }
  const services = createServices({ store, clock, config });
  const chainRefused = await claimDefaultChain(services);
  if (chainRefused !== null) {
    await store.close();
    throw new ConfigError(chainRefused);
  }
  const jobDeps = { store, services, clock, config, logger, indexer };
  const loaded = await loadDemoIfEmpty(jobDeps);
  const jobs = startJobs(jobDeps);

  const worker = startWebhookWorker({ store, clock, config, logger, services, prunes: jobs.prunes });

  const app = createApp({ config, store, clock, logger, services });
  // The docs bundle is compressed off the event loop from the start, not for its first visitor.
  warmDocsFiles().catch((err: unknown) => logger.warn({ err }, 'could not precompress the docs files'));
  opts.extend?.(app);
  const { server } = createLimitedServer(app.callback(), { ...DEFAULT_SERVER_LIMITS, ...opts.limits, maxConnectionsPerIp: config.maxConnectionsPerIp });
  const stream = attachStream(server, app);
  // With a bus (Redis, or PostgreSQL's LISTEN), a moment for it before listening, so the first
  // answers already say "redis":"up" and share caches and limits; a bus away (3 s) leaves us degraded.
  await app.deps.coord.ready(3000);
  server.listen(config.port, config.host);
  const connections = gracefulClose(server);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', (err) => reject(new ConfigError(`cannot listen on HOST ${config.host}, PORT ${config.port}: ${err.message}`)));
  });
  // The demo load committed before the bus existed: instances already running hear of it now.
  if (loaded !== null) store.notifyChange({ tokens: 'all' });
  const address = server.address();
  logger.info({ address }, 'listening');

  let stopping: Promise<void> | null = null;
  const stop = (reason?: string) =>
    (stopping ??= (async () => {
      // Said on every store: an operator reading the log sees a stop asked for, not a crash.
      logger.info({ reason }, 'shutting down: answering the requests in flight (at most 10 s)');
      // Written out before the stop goes on: on a busy machine an asynchronous log line still
      // waiting (a full pipe) could otherwise reach the log after the final "stopped".
      await new Promise<void>((resolve) => logger.flush(() => resolve()));
      await jobs.stop();
      // Requests already sent are answered (none is reset); stragglers are cut after 10 s. The
      // stream's connections are closed with 1001 once those requests are answered.
      const drained = connections.close(DRAIN_TIMEOUT_MS);
      await stream.close();
      await drained;
      await worker.stop();
      await app.deps.coord.close();
      await store.close();
      logger.info({ reason }, 'stopped');
      await new Promise<void>((resolve) => logger.flush(() => resolve()));
    })());
  return { server, store, config, services, logger, stop };
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) {
  // Handlers go in before start-up, so a signal that arrives while starting (or right after the
  // "listening" line) still stops the service cleanly.
  let running: Running | null = null;
  let stopRequested: string | null = null;
  const stopAndExit = (r: Running, signal: string) => void r.stop(signal).then(() => process.exit(0));
  const onSignal = (signal: string) => {
    stopRequested = signal;
    if (running) stopAndExit(running, signal);
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  start().then(
    (r) => {
      running = r;
      if (stopRequested !== null) return stopAndExit(r, stopRequested);
      // The banner names the newest token, read from the store; a store that cannot answer now
      // goes without it. Plain on a terminal; one JSON line in a log stream.
      startUrls(r.services.repos, r.server.address() as AddressInfo).then(
        (urls) => (process.stderr.isTTY ? process.stderr.write(bannerText(urls)) : r.logger.info({ urls }, `ready: open ${urls.liveChart}`)),
        () => undefined,
      );
    },
    (err: unknown) => {
      if (err instanceof ConfigError || err instanceof SchemaTooNewError) {
        process.stderr.write(`error: ${err.message}\n`);
      } else {
        process.stderr.write(`error: could not start: ${err instanceof Error ? err.message : String(err)}\n`);
      }
      process.exit(1);
    },
  );
}

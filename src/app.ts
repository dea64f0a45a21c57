/**
 * createApp: the Koa application, with no port and no globals, so tests drive it through
 * supertest on app.callback(). What an app holds is made here (or in createServices) and handed
 * down to the routers that use it. The middleware is the request flow of docs/architecture.md:
 * edge (request id, other processes' writes, error envelope, compression, metrics, access log)
 * -> gate (caller, limiter, CORS, 429, invalid key 401, write gate, ETag) -> routes.
 */
import Koa from 'koa';
import Router from '@koa/router';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { AnyStore } from './open-store.js';
import { systemClock, type Clock } from './domain/clock.js';
import { createLogger } from './logger.js';
import { createServices, type Services } from './services/index.js';
import { createLimiter } from './limiter/limiter.js';
import { edge } from './http/edge.js';
import { gate } from './http/gate.js';
import { staticFirst } from './http/static-routes.js';
import { healthRouter } from './http/health.js';
import { udfRouter } from './http/udf/index.js';
import { tokensRouter } from './http/v1/tokens.js';
import { marketRouter } from './http/v1/market.js';
import { pricesRouter } from './http/v1/prices.js';
import { accountRouter } from './http/v1/account.js';
import { subscriptionsRouter } from './http/v1/subscriptions.js';
import { ingestRouter } from './http/v1/ingest.js';
import { pagesRouter } from './http/pages.js';
import { dashboardRouter } from './http/dashboard.js';
import { createStream, streamRouter } from './http/stream.js';
import { sdkRouter } from './http/sdk.js';
import { operationsRouter } from './http/operations.js';
import { createReadModels, type ReadModels } from './read/index.js';
import { createCoord } from './coord/wiring.js';
import type { RouteSpec } from './http/route.js';
import type { AppState } from './http/types.js';
import type { StoreHandle } from './store/port/handle.js';
import type { Limiter } from './limiter/limiter.js';
import type { AsyncLimiter } from './limiter/redis-gcra.js';
import type { Stream } from './http/stream.js';
import type { Coord } from './coord/wiring.js';

/** The parts of one app, each made once here and handed to the routers that use them. */
export type AppDeps = {
  config: Config;
  store: StoreHandle;
  clock: Clock;
  logger: Logger;
  services: Services;
  /** The app's rate limiter: in memory, one per app; with REDIS_URL, shared through Redis (answers promises). */
  limiter: Limiter | AsyncLimiter;
  /** The app's live stream (hub and WebSocket server) behind /v1/stream. */
  stream: Stream;
  /** What the app shares with other instances through Redis (src/coord/wiring.ts). */
  coord: Coord;
} & ReadModels;

/** `routes`: every route the app declares, in the order they were added (OpenAPI, tests). */
export type App = Koa<AppState> & { deps: AppDeps; routes: readonly RouteSpec[] };

export function createApp(input: { config: Config; store: AnyStore; clock?: Clock; logger?: Logger; services?: Services }): App {
  const clock = input.clock ?? systemClock;
  const logger = input.logger ?? createLogger(input.config.logLevel, undefined, input.config.instanceId);
  const services = input.services ?? createServices({ store: input.store, clock, config: input.config });
  // The read models, built once and handed to the routers and the stream (CACHE=off: nothing kept, the benchmark's uncached run).
  const reads = createReadModels({ config: input.config, store: input.store, clock, services });
  // What instances share through a bus (src/coord/wiring.ts): Redis, or PostgreSQL's LISTEN/NOTIFY; nothing on SQLite alone.
  const coord = createCoord({ config: input.config, store: input.store, logger, registry: services.metrics.registry });
  const parts = {
    coord,
    config: input.config,
    store: input.store,
    clock,
    logger,
    services,
    // With REDIS_URL, buckets shared by every instance in Redis, these while Redis is away.
    limiter: coord.limiter(createLimiter({ clock })),
    ...reads,
  };
  const deps: AppDeps = { ...parts, stream: createStream(parts) };

  const app = new Koa<AppState>({ proxy: input.config.trustProxy > 0, maxIpsCount: input.config.trustProxy }) as App;
  app.deps = deps;
  app.silent = true;
  app.on('error', (err: unknown, ctx?: { state?: AppState }) => {
    // A client that goes away mid-answer is not a failure of ours (load tools do it at the end of every run).
    const code = (err as { code?: unknown } | null)?.code;
    const gone = code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'ECONNRESET' || code === 'EPIPE';
    logger[gone ? 'debug' : 'error']({ err, requestId: ctx?.state?.requestId }, gone ? 'client went away' : 'request failed');
  });

  const apiRouters = [
    healthRouter(deps),
    udfRouter(deps),
    tokensRouter(deps),
    marketRouter(deps),
    pricesRouter(deps),
    accountRouter(deps),
    subscriptionsRouter(deps),
    ingestRouter(deps),
    pagesRouter(),
    dashboardRouter(deps),
    streamRouter(deps),
    sdkRouter(),
  ];
  const specs = apiRouters.flatMap((r) => r.specs);
  const operations = operationsRouter(deps, specs);
  app.routes = [...specs, ...operations.specs];
  const root = new Router<AppState>();
  for (const r of [...apiRouters, operations]) root.use(r.routes());

  // Two steps before the routes, each one function (docs/architecture.md, Request flow): the
  // outer one owns the request id, the error envelope, compression, metrics and the log line; the
  // inner one the caller, the limiter, CORS, the 429 and 401, the write gate and the ETag.
  app.use(edge(deps, app.routes));
  // With a bus: a write answers once its notices are out (src/coord/wiring.ts).
  if (coord.middleware) app.use(coord.middleware);
  app.use(gate(deps));
  app.use(staticFirst(root));
  app.use(root.allowedMethods());
  return app;
}

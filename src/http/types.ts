/** Types shared by the middleware and routers: what createApp is given and what ctx.state holds. */
import type { ParameterizedContext, Middleware } from 'koa';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { StoreHandle } from '../store/handle.js';
import type { Clock } from '../domain/clock.js';
import type { ApiError } from '../errors.js';
import type { KeyRow, Plan, Tenant } from '../store/accounts-repo.js';
import type { Services } from '../services/index.js';
import type { Limiter } from '../limiter/limiter.js';
import type { AsyncLimiter } from '../limiter/redis-gcra.js';
import type { ResponseCache } from './response-cache.js';
import type { Views } from './v1/views.js';
import type { Stream } from './stream.js';
import type { HistoryCache } from './history-cache.js';
import type { Coord } from '../coord/wiring.js';

export type AppDeps = {
  config: Config;
  store: StoreHandle;
  clock: Clock;
  logger: Logger;
  services: Services;
  /** The app's rate limiter: in memory, one per app; with REDIS_URL, shared through Redis (answers promises). */
  limiter: Limiter | AsyncLimiter;
  /** The app's cache of read answers, dropped by store changes (one per app). */
  cache: ResponseCache;
  /** The app's read views of /v1 (tokens, overview, discovery), sharing `cache`. */
  views: Views;
  /** The app's newest bars of each chart series, for history answers (sharing `cache`). */
  history: HistoryCache;
  /** The app's live stream (hub and WebSocket server) behind /v1/stream. */
  stream: Stream;
  /** What the app shares with other instances through Redis (src/coord/wiring.ts). */
  coord: Coord;
};

/**
 * Who is calling. `invalid` carries the error to answer with once the limiter has counted the
 * request against the IP bucket (401, or 400 for conflicting credentials).
 */
export type Caller = { kind: 'anonymous' } | { kind: 'key'; key: KeyRow; tenant: Tenant; plan: Plan } | { kind: 'invalid'; error: ApiError };

/** The limiter's answer for this request, written as RateLimit-* headers on every response. */
export type RateLimitState = {
  limit: number;
  remaining: number;
  resetSeconds: number;
  policy: string;
  /** Set when the request is refused: seconds until one more request is allowed (at least 1). */
  retryAfterSeconds?: number;
};

export type AppState = {
  requestId: string;
  caller: Caller;
  rateLimit?: RateLimitState;
  /** The route's pattern (e.g. /v1/token/:address/overview) for logs and metrics. */
  route?: string;
};

export type AppContext = ParameterizedContext<AppState>;
export type AppMiddleware = Middleware<AppState>;

/**
 * Types shared by the middleware and routers: what ctx.state holds. What an app is made of
 * (AppDeps) is declared in app.ts, above every router: each router and middleware declares the
 * few parts it takes, so none imports the whole app and no import runs in a circle.
 */
import type { ParameterizedContext, Middleware } from 'koa';
import type { ApiError } from '../errors.js';
import type { KeyRow, Plan, Tenant } from '../store/port/repos.js';

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

/**
 * The inner step of every request (docs/architecture.md, Request flow), one function doing in
 * order what were eight middleware layers: the caller, the limiter's decision, CORS (a preflight
 * is answered here), the 429, the 401 of an invalid key, the wait for a sliced write; then, once
 * the route has answered, its JSON serialised once with an ETag (and a 304 when the client holds
 * it). A step waits only when its answer is a promise: a key lookup that misses the cache, a
 * limiter that answers promises (docs/operations.md, Many instances), a sliced write under way,
 * a large cached form being made. The common request runs every step without one.
 */
import type { Limiter } from '../limiter/limiter.js';
import type { AsyncLimiter } from '../limiter/redis-gcra.js';
import type { AppMiddleware } from './types.js';
import { createCallerResolver, type CallerDeps } from './auth.js';
import { createLimitStep, type LimitDeps } from './rate-limit.js';
import { createCors } from './cors.js';
import { refuseIfLimited } from './rate-limit-headers.js';
import { sliceWait } from './write-gate.js';
import { tagAnswer } from './conditional.js';

/** The inner middleware of `deps`' app, on its limiter unless another is given. */
export function gate(deps: CallerDeps & LimitDeps, limiter: Limiter | AsyncLimiter = deps.limiter): AppMiddleware {
  const resolve = createCallerResolver(deps);
  const limit = createLimitStep(deps, limiter);
  const cors = createCors(deps.config);
  const { store } = deps;
  return async function gateStep(ctx, next) {
    const caller = resolve(ctx);
    ctx.state.caller = caller instanceof Promise ? await caller : caller;
    // The limiter decides (never throws) before CORS, so preflights answered by CORS carry the
    // caller's RateLimit-* headers; the 429 itself comes after CORS, so browsers can read it.
    const limiting = limit(ctx);
    if (limiting !== undefined) await limiting;
    if (cors(ctx)) return;
    refuseIfLimited(ctx);
    // After the limiter, so an exhausted bucket answers 429 before an invalid key's 401.
    const resolved = ctx.state.caller;
    if (resolved.kind === 'invalid') throw resolved.error;
    // The path is read only while a sliced write is under way (rarely).
    const pending = store.settled() === null ? null : sliceWait(store, ctx.request.path);
    if (pending !== null) await pending;
    await next();
    const tagging = tagAnswer(ctx);
    if (tagging !== undefined) await tagging;
  };
}

/** X-Request-Id: the client's own when it is a sane token, else a new UUID; on every response. */
import { randomUUID } from 'node:crypto';
import type { AppContext, AppMiddleware } from './types.js';
import { ANONYMOUS } from './auth.js';

const SANE = /^[\w.-]{1,128}$/;

/** Gives the request its id (and its caller until the gate resolves one: anonymous). */
export function stampRequest(ctx: AppContext): void {
  const given = ctx.req.headers['x-request-id'];
  const id = typeof given === 'string' && SANE.test(given) ? given : randomUUID();
  ctx.state.requestId = id;
  // Straight to Node: Koa's ctx.set builds arrays to handle header objects on every call.
  ctx.res.setHeader('X-Request-Id', id);
  ctx.state.caller = ANONYMOUS;
}

/** The request id step on its own, as a middleware (the app runs it inside src/http/edge.ts). */
export const requestId = (): AppMiddleware => async (ctx, next) => {
  stampRequest(ctx);
  await next();
};

/** X-Request-Id: the client's own when it is a sane token, else a new UUID; on every response. */
import { randomUUID } from 'node:crypto';
import type { AppContext, AppMiddleware } from './types.js';
import { ANONYMOUS } from './auth.js';

const SANE = /^[\w.-]{1,128}$/;

/** Gives the request its id (and its caller until the gate resolves one: anonymous). */
export function stampRequest(ctx: AppContext): void {
  const given = ctx.get('x-request-id');
  const id = given !== '' && SANE.test(given) ? given : randomUUID();
  ctx.state.requestId = id;
  ctx.set('X-Request-Id', id);
  ctx.state.caller = ANONYMOUS;
}

/** The request id step on its own, as a middleware (the app runs it inside src/http/edge.ts). */
export const requestId = (): AppMiddleware => async (ctx, next) => {
  stampRequest(ctx);
  await next();
};

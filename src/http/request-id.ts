/** X-Request-Id: the client's own when it is a sane token, else a new UUID; on every response. */
import { randomUUID } from 'node:crypto';
import type { AppMiddleware } from './types.js';
import { ANONYMOUS } from './auth.js';

const SANE = /^[\w.-]{1,128}$/;

export const requestId = (): AppMiddleware => async (ctx, next) => {
  const given = ctx.get('x-request-id');
  ctx.state.requestId = SANE.test(given) ? given : randomUUID();
  ctx.set('X-Request-Id', ctx.state.requestId);
  ctx.state.caller = ANONYMOUS;
  await next();
};

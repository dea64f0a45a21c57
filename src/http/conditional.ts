/**
 * ETag and 304 for GET JSON answers (docs/api.md, Conventions). The JSON is serialised here once, so
 * the tag is a hash of the exact bytes sent; compression (outside) then works on the string.
 */
import { createHash } from 'node:crypto';
import { PreparedJson } from './prepared-json.js';
import type { AppMiddleware } from './types.js';

export const conditionalGet = (): AppMiddleware => async (ctx, next) => {
  await next();
  if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || ctx.status !== 200) return;
  const body = ctx.body;
  if (body instanceof PreparedJson) {
    ctx.body = body.json;
    ctx.type = 'application/json';
    ctx.etag = body.etag;
    if (ctx.fresh) ctx.status = 304;
    return;
  }
  if (body === null || typeof body !== 'object' || Buffer.isBuffer(body) || typeof (body as { pipe?: unknown }).pipe === 'function') return;
  const json = JSON.stringify(body);
  ctx.body = json;
  ctx.type = 'application/json';
  ctx.etag = createHash('sha1').update(json).digest('base64url');
  if (ctx.fresh) ctx.status = 304;
};

/**
 * Response compression (docs/api.md, Conventions: JSON over 1 KB is compressed when the client
 * accepts it), by koa-compress. koa-compress fails (500) when the client accepts no coding it
 * offers and also refuses identity (`identity;q=0`, `*;q=0`); such a client gets the plain body,
 * which is what it would get from most servers and more useful than a 406.
 *
 * Nothing under the threshold is negotiated: koa-compress runs only once the answer is known and
 * at least 1 KB, so a small answer pays for its Vary header and nothing else. Cached JSON answers
 * arrive here already compressed (src/http/conditional.ts) and are left as they are.
 */
import compress from 'koa-compress';
import type { AppContext, AppMiddleware } from './types.js';

export const COMPRESS_THRESHOLD = 1024;

/** Compresses the answer in place when it should be; a promise only when koa-compress runs. */
export type CompressStep = (ctx: AppContext) => Promise<void> | undefined;

export function createCompressor(): CompressStep {
  const inner = compress({ threshold: COMPRESS_THRESHOLD, br: false }) as unknown as AppMiddleware;
  const done = () => Promise.resolve();
  return (ctx) => {
    const length = ctx.response.length;
    // Unknown length (a stream) is left to koa-compress, which decides by type.
    if (ctx.body === null || ctx.body === undefined || (length !== undefined && length < COMPRESS_THRESHOLD)) return undefined;
    // hasHeader, not ctx.response.headers: that copies every header set so far.
    if (ctx.res.hasHeader('content-encoding')) return undefined;
    if (ctx.acceptsEncodings('gzip', 'deflate', 'identity') === false) delete ctx.request.headers['accept-encoding'];
    return inner(ctx, done) as Promise<void>;
  };
}

/** The compression step on its own, as a middleware (the app runs it inside src/http/edge.ts). */
export function compression(): AppMiddleware {
  const compressed = createCompressor();
  return async (ctx, next) => {
    ctx.vary('Accept-Encoding');
    await next();
    await compressed(ctx);
  };
}

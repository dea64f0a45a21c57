/**
 * Response compression (docs/api.md, Conventions: JSON over 1 KB is compressed when the client
 * accepts it), by koa-compress. koa-compress fails (500) when the client accepts no coding it
 * offers and also refuses identity (`identity;q=0`, `*;q=0`); such a client gets the plain body,
 * which is what it would get from most servers and more useful than a 406.
 */
import compress from 'koa-compress';
import type { AppMiddleware } from './types.js';

export function compression(): AppMiddleware {
  const inner = compress({ threshold: 1024, br: false }) as unknown as AppMiddleware;
  return (ctx, next) => {
    if (ctx.acceptsEncodings('gzip', 'deflate', 'identity') === false) delete ctx.request.headers['accept-encoding'];
    return inner(ctx, next);
  };
}

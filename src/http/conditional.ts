/**
 * ETag and 304 for GET JSON answers (docs/api.md, Conventions). The JSON is serialised here once, so
 * the tag is a hash of the exact bytes sent; compression (outside) then works on the string.
 *
 * A prepared answer (a cached one, src/read/prepared-json.ts) of 1 KB or more goes out in the coding
 * the client accepts, brotli before gzip, from forms made once: no request compresses it again.
 * Each coding has its own ETag (`<tag>-br`, `<tag>-gzip`), as for static files, so a 304 is only
 * given for the bytes the client holds.
 */
import { createHash } from 'node:crypto';
import { ASYNC_COMPRESS_BYTES, JSON_TYPE, PreparedJson, type Coding } from '../read/prepared-json.js';
import { COMPRESS_THRESHOLD } from './compression.js';
import type { AppContext, AppMiddleware } from './types.js';

/** Serialises and tags the answer once the route has given it; a promise only for a large form made on the thread pool. */
export function tagAnswer(ctx: AppContext): Promise<void> | undefined {
  const method = ctx.req.method;
  if ((method !== 'GET' && method !== 'HEAD') || ctx.res.statusCode !== 200) return undefined;
  const body = ctx.response.body;
  if (body instanceof PreparedJson) return sendPrepared(ctx, body);
  if (body === null || typeof body !== 'object' || Buffer.isBuffer(body) || typeof (body as { pipe?: unknown }).pipe === 'function') return undefined;
  const json = JSON.stringify(body);
  ctx.body = json;
  ctx.type = 'application/json';
  ctx.etag = createHash('sha1').update(json).digest('base64url');
  if (conditional(ctx) && ctx.fresh) ctx.status = 304;
  return undefined;
}

/** The ETag step on its own, as a middleware (the app runs it inside src/http/gate.ts). */
export const conditionalGet = (): AppMiddleware => async (ctx, next) => {
  await next();
  await tagAnswer(ctx);
};

function sendPrepared(ctx: AppContext, body: PreparedJson): Promise<void> | undefined {
  const coding = body.size >= COMPRESS_THRESHOLD ? acceptedCoding(ctx) : null;
  if (coding === null) {
    finishPrepared(ctx, body, null, null);
    return undefined;
  }
  // A large form is made on the thread pool (prepared-json.ts, ASYNC_COMPRESS_BYTES); a smaller
  // one, made or not, without waiting for a promise.
  const form = body.size < ASYNC_COMPRESS_BYTES ? body.encoded(coding) : body.encodedAsync(coding);
  if (!(form instanceof Promise)) {
    finishPrepared(ctx, body, coding, form);
    return undefined;
  }
  return form.then((made) => finishPrepared(ctx, body, coding, made));
}

function finishPrepared(ctx: AppContext, body: PreparedJson, coding: Coding | null, form: Buffer | null): void {
  // The headers go straight to Node, with the values Koa's setters would write (`ctx.etag`
  // quotes, `ctx.type` adds the charset): each setter parses or copies its value on every request.
  const res = ctx.res;
  if (coding !== null && form !== null) {
    ctx.body = form;
    res.setHeader('Content-Encoding', coding);
    res.setHeader('ETag', body.etagHeader(coding));
  } else {
    ctx.body = body.json;
    res.setHeader('ETag', body.etagHeader(null));
    // A client that takes neither coding gets the plain answer, not one compressed per request.
    if (body.size >= COMPRESS_THRESHOLD) (ctx as { compress?: boolean }).compress = false;
  }
  // Usually set already, to this value, when the route answered (src/http/route.ts).
  if (res.getHeader('Content-Type') !== JSON_TYPE) res.setHeader('Content-Type', JSON_TYPE);
  if (conditional(ctx) && ctx.fresh) ctx.status = 304;
}

/**
 * Whether the request is conditional at all: without If-None-Match or If-Modified-Since an answer
 * is never fresh, and asking Koa copies every response header to find that out.
 */
function conditional(ctx: AppContext): boolean {
  const h = ctx.req.headers;
  return Boolean(h['if-none-match'] || h['if-modified-since']);
}

/** Accept-Encoding values already read, and the coding each picks (browsers send one or two values). */
const picked = new Map<string, Coding | null>();
/** Values kept at most, and the longest kept (a longer one is read each time). */
const PICKED_MAX = 256;
const PICKED_LENGTH = 256;

/**
 * brotli when the client accepts it (q above 0, or `*`), else gzip, else none: the smaller form
 * whatever the client's order, as browsers list gzip first but all take brotli. Koa's
 * negotiation parses the header into objects on every call; its answer for a value is kept.
 */
function acceptedCoding(ctx: AppContext): Coding | null {
  const header = ctx.req.headers['accept-encoding'];
  if (header === undefined || header === '') return null;
  let coding = picked.get(header);
  if (coding !== undefined) return coding;
  coding = ctx.acceptsEncodings('br') === 'br' ? 'br' : ctx.acceptsEncodings('gzip') === 'gzip' ? 'gzip' : null;
  if (header.length <= PICKED_LENGTH) {
    if (picked.size >= PICKED_MAX) picked.clear();
    picked.set(header, coding);
  }
  return coding;
}

/**
 * The benchmark's ceiling (docs/operations.md, Benchmark): a bare Koa app, with no middleware of
 * ours, on its own port in the bench server's process, answering `GET /<name>` with a copy of a
 * real route's answer as precompressed bytes: brotli or gzip by Accept-Encoding (made once, as
 * the service's cached answers are), with Vary, an ETag per coding, and padding that makes its
 * headers as long as the route's. It is what a route could reach if our stack cost nothing: a
 * ceiling that does no per-request compression, so a route that compresses per request shows it.
 */
import Koa from 'koa';
import { createHash } from 'node:crypto';
import type { Server } from 'node:http';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/** What a browser sends, and so the benchmark's clients (docs/operations.md, Benchmark). */
export const BROWSER_ACCEPT_ENCODING = 'gzip, deflate, br';

/** One fixed answer in every form it is sent in. */
export type BaselineBody = { identity: Buffer; gzip: Buffer | null; br: Buffer | null; etag: string; pad: string };

/** The header bytes of an answer as Node writes them (name, ": ", value, CRLF), beyond the status line. */
export function headerBytes(headers: Iterable<[string, string]>): number {
  let n = 0;
  for (const [k, v] of headers) n += k.length + v.length + 4;
  return n;
}

/** A route's answer and header length, kept as the baseline's fixed answer. */
export async function capture(url: string, headers: Record<string, string> = {}): Promise<{ status: number; json: string; headerBytes: number }> {
  const res = await fetch(url, { headers });
  const pairs: [string, string][] = [];
  res.headers.forEach((v, k) => pairs.push([k, v]));
  return { status: res.status, json: await res.text(), headerBytes: headerBytes(pairs) };
}

/** Builds `json`'s forms; `routeHeaderBytes` is the route's header length that padding matches. */
export function baselineBody(json: string, routeHeaderBytes: number): BaselineBody {
  const identity = Buffer.from(json);
  const big = identity.length >= 1024;
  const gzip = big ? gzipSync(identity, { level: 6 }) : null;
  const br = big ? brotliCompressSync(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } }) : null;
  const etag = createHash('sha1').update(identity).digest('base64url');
  // Koa's own headers (type, length, vary, etag, date, connection, keep-alive) are about 200 bytes.
  return { identity, gzip, br, etag, pad: 'x'.repeat(Math.max(0, routeHeaderBytes - 200 - 'x-pad'.length - 4)) };
}

/** The bare app; `bodies` maps a name to its answer and may be filled later. */
export function baselineApp(bodies: ReadonlyMap<string, BaselineBody>): Koa {
  const app = new Koa();
  app.use((ctx) => {
    const body = bodies.get(ctx.path.slice(1));
    if (body === undefined) {
      ctx.status = 404;
      return;
    }
    const accepts = ctx.get('accept-encoding');
    const coding = body.br !== null && accepts.includes('br') ? 'br' : body.gzip !== null && accepts.includes('gzip') ? 'gzip' : null;
    ctx.type = 'application/json';
    ctx.vary('Accept-Encoding');
    if (body.pad !== '') ctx.set('X-Pad', body.pad);
    if (coding === null) {
      ctx.etag = body.etag;
      ctx.body = body.identity;
    } else {
      ctx.set('Content-Encoding', coding);
      ctx.etag = `${body.etag}-${coding}`;
      ctx.body = body[coding];
    }
    if (ctx.fresh) ctx.status = 304;
  });
  return app;
}

/** Listens on 127.0.0.1 at a free port. */
export function listenBaseline(bodies: ReadonlyMap<string, BaselineBody>): Promise<Server> {
  return new Promise((resolve) => {
    const server = baselineApp(bodies).listen(0, '127.0.0.1', () => resolve(server));
  });
}

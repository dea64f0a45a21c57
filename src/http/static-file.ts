/**
 * Files served from memory (pages, assets, the docs bundle): read once, tagged once, compressed
 * once, answered with their cache policy and a 304 when the client already has them.
 *
 * Text files of 1 KB or more are compressed with gzip and brotli once, off the event loop (zlib's
 * thread pool), when the file is loaded; until both are ready the file is served as is. Requests
 * get the coding their Accept-Encoding prefers (br, then gzip, then identity) with `Vary:
 * Accept-Encoding` and an ETag per coding; the per-request compression middleware is switched off
 * for them, so no request pays for compressing (docs/api.md, Limits).
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { AppContext } from './types.js';

export type Coding = 'br' | 'gzip';
export type StaticFile = {
  body: Buffer;
  type: string;
  etag: string;
  cacheControl: string;
  /** The compressed forms ready so far (a coding is left out when it does not make the file smaller). */
  encoded: Map<Coding, Buffer>;
  /** Resolves once the compressed forms are ready (at once for a file that is not compressed). */
  ready: Promise<void>;
};

const COMPRESSIBLE = /^(text\/|application\/(json|javascript|xml)|image\/svg\+xml)/;
const MIN_COMPRESS_BYTES = 1024;

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

/** Compressed forms by content tag: each distinct file is compressed once per process. */
const compressed = new Map<string, Promise<Record<Coding, Buffer>>>();

function compress(body: Buffer, etag: string): Promise<Record<Coding, Buffer>> {
  let p = compressed.get(etag);
  if (p === undefined) {
    p = Promise.all([
      gzipAsync(body, { level: 9 }),
      brotliAsync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }),
    ]).then(([gz, br]) => ({ gzip: gz, br }));
    compressed.set(etag, p);
  }
  return p;
}

export function staticFile(body: Buffer, type: string, cacheControl: string): StaticFile {
  const etag = createHash('sha1').update(body).digest('base64url');
  const encoded = new Map<Coding, Buffer>();
  let ready = Promise.resolve();
  if (COMPRESSIBLE.test(type) && body.length >= MIN_COMPRESS_BYTES) {
    ready = compress(body, etag).then(
      (forms) => {
        for (const coding of ['br', 'gzip'] as const) if (forms[coding].length < body.length) encoded.set(coding, forms[coding]);
      },
      () => {}, // serve it uncompressed
    );
  }
  return { body, type, etag, cacheControl, encoded, ready };
}

export function sendStatic(ctx: AppContext, file: StaticFile): void {
  ctx.set('Cache-Control', file.cacheControl);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.type = file.type;
  (ctx as { compress?: boolean }).compress = false;
  const compressible = COMPRESSIBLE.test(file.type) && file.body.length >= MIN_COMPRESS_BYTES;
  if (compressible) ctx.vary('Accept-Encoding');
  const offered = [...file.encoded.keys()];
  const coding = offered.length > 0 ? ctx.acceptsEncodings(...offered, 'identity') : false;
  if (coding === 'br' || coding === 'gzip') {
    ctx.set('Content-Encoding', coding);
    ctx.body = file.encoded.get(coding)!;
    ctx.etag = `${file.etag}-${coding}`;
  } else {
    ctx.body = file.body;
    ctx.etag = file.etag;
  }
  if (ctx.fresh) ctx.status = 304;
}

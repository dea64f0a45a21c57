/**
 * Files served from memory (pages, assets, the docs bundle): read once, tagged once, compressed
 * once, answered with their cache policy and a 304 when the client already has them.
 *
 * Text files of 1 KB or more are compressed with gzip and brotli once, off the event loop (zlib's
 * thread pool), when the file is loaded; each coding is served as soon as it is ready (gzip of
 * the 1.7 MB Swagger UI bundle takes a tenth of a second, brotli a little more), and `coding`
 * lets a route wait for the one its client takes rather than answer a large file uncompressed
 * (either may finish first on a busy machine). Requests
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
  /** Resolves once that coding's form is ready or refused (at once for a file that is not compressed). */
  coding: Record<Coding, Promise<void>>;
};

const COMPRESSIBLE = /^(text\/|application\/(json|javascript|xml)|image\/svg\+xml)/;
const MIN_COMPRESS_BYTES = 1024;

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

/**
 * Brotli's best quality (11) costs about 8 ms a KB: right for pages and our assets, but 5-14 s of
 * a core for the 1.7 MB Swagger UI bundle at every start (and in every test that starts a
 * server). Quality 6 makes it 400 KB instead of 359 KB in about 0.2 s.
 */
const brotliQuality = (bytes: number): number => (bytes > 256 * 1024 ? 6 : 11);

/** Compressed forms by content tag: each distinct file is compressed once per process. */
const compressed = new Map<string, Record<Coding, Promise<Buffer>>>();

function compress(body: Buffer, etag: string): Record<Coding, Promise<Buffer>> {
  let p = compressed.get(etag);
  if (p === undefined) {
    p = {
      gzip: gzipAsync(body, { level: 9 }),
      br: brotliAsync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: brotliQuality(body.length), [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }),
    };
    compressed.set(etag, p);
  }
  return p;
}

export function staticFile(body: Buffer, type: string, cacheControl: string): StaticFile {
  const etag = createHash('sha1').update(body).digest('base64url');
  const encoded = new Map<Coding, Buffer>();
  let ready = Promise.resolve();
  let coding: Record<Coding, Promise<void>> = { br: ready, gzip: ready };
  if (COMPRESSIBLE.test(type) && body.length >= MIN_COMPRESS_BYTES) {
    const forms = compress(body, etag);
    const each = (['br', 'gzip'] as const).map((coding) =>
      forms[coding].then(
        (bytes) => void (bytes.length < body.length && encoded.set(coding, bytes)),
        () => {}, // that coding is not offered
      ),
    );
    ready = Promise.all(each).then(() => {});
    coding = { br: each[0]!, gzip: each[1]! };
  }
  return { body, type, etag, cacheControl, encoded, ready, coding };
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

/**
 * A JSON answer serialised once, with its ETag, and compressed at most once per coding. Cached
 * answers are kept in this form, so a cache hit costs neither JSON.stringify, nor hashing, nor
 * compressing: the ETag middleware (src/http/conditional.ts) sends the bytes of the coding the
 * client accepts (docs/api.md, Conventions).
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, brotliCompressSync, constants, gzip, gzipSync, type BrotliOptions, type ZlibOptions } from 'node:zlib';

export type Coding = 'br' | 'gzip';

/** The Content-Type of a JSON answer, as Koa's `ctx.type = 'json'` writes it. */
export const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Levels for a form made once and sent many times, on the event loop: brotli 5 and gzip 6 compress
 * a 30 KB answer in about a millisecond each; higher brotli qualities cost ten times more for a
 * few per cent.
 */
const options = (b: Buffer): { gzip: ZlibOptions; br: BrotliOptions } => ({
  gzip: { level: 6 },
  br: { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: b.length } },
});
const encoders: Record<Coding, (b: Buffer) => Buffer> = {
  gzip: (b) => gzipSync(b, options(b).gzip),
  br: (b) => brotliCompressSync(b, options(b).br),
};
const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);
const asyncEncoders: Record<Coding, (b: Buffer) => Promise<Buffer>> = {
  gzip: (b) => gzipAsync(b, options(b).gzip),
  br: (b) => brotliAsync(b, options(b).br),
};

/**
 * Answers at least this large are compressed on libuv's thread pool, not on the event loop: a
 * 5,000-bar history answer (about 300 KB) took 10-35 ms to compress there, one request's whole
 * share of the loop (docs/api.md, Limits).
 */
export const ASYNC_COMPRESS_BYTES = 64 * 1024;

/** `T` is the type of the serialised value, so a handler's cached answer is typed like a fresh one. */
export class PreparedJson<T = unknown> {
  readonly json: string;
  readonly etag: string;
  /** UTF-8 bytes of `json`. */
  readonly size: number;
  /** Type only (never set): what `json` holds. */
  declare readonly value?: T;
  /** Told the bytes a new compressed form holds, so the cache that keeps this answer counts them. */
  onGrow: ((bytes: number) => void) | undefined;
  private readonly forms = new Map<Coding, Buffer | null>();
  /** The ETag header's value of each form sent (quoted, as Koa's `ctx.etag` writes it), made once. */
  private tagPlain: string | undefined;
  private tagBr: string | undefined;
  private tagGzip: string | undefined;
  private readonly making = new Map<Coding, Promise<Buffer | null>>();

  constructor(value: T) {
    this.json = JSON.stringify(value);
    this.size = Buffer.byteLength(this.json);
    this.etag = createHash('sha1').update(this.json).digest('base64url');
  }

  /** The ETag header of the form in `coding` (null: the plain JSON): `"<etag>"` or `"<etag>-<coding>"`. */
  etagHeader(coding: Coding | null): string {
    if (coding === null) return (this.tagPlain ??= `"${this.etag}"`);
    if (coding === 'br') return (this.tagBr ??= `"${this.etag}-br"`);
    return (this.tagGzip ??= `"${this.etag}-gzip"`);
  }

  /** The answer in `coding`, made on first use; null when that form would not be smaller. */
  encoded(coding: Coding): Buffer | null {
    let form = this.forms.get(coding);
    if (form === undefined) {
      const made = encoders[coding](Buffer.from(this.json));
      form = made.length < this.size ? made : null;
      this.forms.set(coding, form);
      this.onGrow?.((form?.length ?? 0) + 64);
    }
    return form;
  }

  /**
   * As `encoded`, but a large answer's form is made off the event loop (ASYNC_COMPRESS_BYTES); two
   * requests that ask for it at once share one compression.
   */
  async encodedAsync(coding: Coding): Promise<Buffer | null> {
    if (this.forms.has(coding) || this.size < ASYNC_COMPRESS_BYTES) return this.encoded(coding);
    let pending = this.making.get(coding);
    if (pending === undefined) {
      pending = asyncEncoders[coding](Buffer.from(this.json)).then((made) => {
        const form = made.length < this.size ? made : null;
        this.forms.set(coding, form);
        this.making.delete(coding);
        this.onGrow?.((form?.length ?? 0) + 64);
        return form;
      });
      this.making.set(coding, pending);
    }
    return pending;
  }

  /** Heap bytes held, for the byte-bounded response cache: at most two a character, plus the compressed forms. */
  approxBytes(): number {
    let n = 2 * this.json.length + 2 * this.etag.length + 96;
    for (const form of this.forms.values()) n += (form?.length ?? 0) + 64;
    return n;
  }
}

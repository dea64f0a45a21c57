/**
 * A JSON answer serialised once, with its ETag, and compressed at most once per coding. Cached
 * answers are kept in this form, so a cache hit costs neither JSON.stringify, nor hashing, nor
 * compressing: the ETag middleware (src/http/conditional.ts) sends the bytes of the coding the
 * client accepts (docs/api.md, Conventions).
 */
import { createHash } from 'node:crypto';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

export type Coding = 'br' | 'gzip';

/**
 * Levels for a form made once and sent many times, on the event loop: brotli 5 and gzip 6 compress
 * a 30 KB answer in about a millisecond each; higher brotli qualities cost ten times more for a
 * few per cent.
 */
const encoders: Record<Coding, (b: Buffer) => Buffer> = {
  gzip: (b) => gzipSync(b, { level: 6 }),
  br: (b) => brotliCompressSync(b, { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: b.length } }),
};

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

  constructor(value: T) {
    this.json = JSON.stringify(value);
    this.size = Buffer.byteLength(this.json);
    this.etag = createHash('sha1').update(this.json).digest('base64url');
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

  /** Heap bytes held, for the byte-bounded response cache: at most two a character, plus the compressed forms. */
  approxBytes(): number {
    let n = 2 * this.json.length + 2 * this.etag.length + 96;
    for (const form of this.forms.values()) n += (form?.length ?? 0) + 64;
    return n;
  }
}

/**
 * A JSON answer serialised once, with its ETag. Cached answers are kept in this form, so a cache
 * hit costs neither JSON.stringify nor hashing; the ETag middleware sends it as it is.
 */
import { createHash } from 'node:crypto';

/** `T` is the type of the serialised value, so a handler's cached answer is typed like a fresh one. */
export class PreparedJson<T = unknown> {
  readonly json: string;
  readonly etag: string;
  /** Type only (never set): what `json` holds. */
  declare readonly value?: T;

  constructor(value: T) {
    this.json = JSON.stringify(value);
    this.etag = createHash('sha1').update(this.json).digest('base64url');
  }

  /** Heap bytes held, for the byte-bounded response cache: at most two a character. */
  approxBytes(): number {
    return 2 * this.json.length + 2 * this.etag.length + 96;
  }
}

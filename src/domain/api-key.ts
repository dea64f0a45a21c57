/**
 * API key secrets: `svc_live_` + 40 base62 characters from the system's cryptographic source.
 * Only the SHA-256 of a secret is stored; a display prefix and the last four characters are kept.
 */
import { createHash, randomInt } from 'node:crypto';

export const KEY_PREFIX = 'svc_live_';
export const MAX_KEY_LENGTH = 256;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 40;

export type NewSecret = { secret: string; hash: Buffer; prefix: string; last4: string };

export function newKeySecret(): NewSecret {
  let random = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) random += BASE62[randomInt(62)];
  const secret = KEY_PREFIX + random;
  return { secret, hash: hashKey(secret), prefix: KEY_PREFIX + random.slice(0, 4), last4: random.slice(-4) };
}

export function hashKey(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

/** Whether a presented value could be one of our keys at all (no hashing for garbage). */
export function looksLikeKey(value: string): boolean {
  return value.length <= MAX_KEY_LENGTH && value.startsWith(KEY_PREFIX) && /^svc_live_[0-9A-Za-z]{32,}$/.test(value);
}

/** A short random id with a readable type prefix, e.g. `ten_3fK9...`. */
export function newId(prefix: string): string {
  let s = '';
  for (let i = 0; i < 16; i++) s += BASE62[randomInt(62)];
  return `${prefix}_${s}`;
}

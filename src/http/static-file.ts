/**
 * Files served from memory (pages, assets, the docs bundle): read once, tagged once, answered
 * with their cache policy and a 304 when the client already has them.
 */
import { createHash } from 'node:crypto';
import type { AppContext } from './types.js';

export type StaticFile = { body: Buffer; type: string; etag: string; cacheControl: string };

export function staticFile(body: Buffer, type: string, cacheControl: string): StaticFile {
  return { body, type, etag: createHash('sha1').update(body).digest('base64url'), cacheControl };
}

export function sendStatic(ctx: AppContext, file: StaticFile): void {
  ctx.set('Cache-Control', file.cacheControl);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.type = file.type;
  ctx.body = file.body;
  ctx.etag = file.etag;
  if (ctx.fresh) ctx.status = 304;
}

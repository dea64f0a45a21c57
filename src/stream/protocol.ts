/**
 * The client messages of the live stream (docs/api.md, Live stream): parsing one text frame into a
 * command, or into the error it is answered with. Pure: no sockets, no store.
 */
import { parseResolution, type Resolution } from '../domain/resolution.js';
import type { ChartMetric } from '../domain/chart-metric.js';

/** Subscriptions one connection may hold. */
export const MAX_SUBSCRIPTIONS = 200;
/** Tokens one prices subscription may name. */
export const MAX_PRICE_TOKENS = 100;
/** Longest token name accepted (as /udf/symbols: an address, a symbol or EXCHANGE:SYMBOL). */
const MAX_NAME = 200;
/** 10000-01-01: no bar time is later. */
const MAX_TIME = 253402300800;

export type StreamErrorCode = 'invalid_body' | 'invalid_parameter' | 'token_not_found' | 'subscription_not_found' | 'rate_limited';

export type ProtoError = { id: string | null; code: StreamErrorCode; message: string; param?: string };

export type Command =
  | { op: 'ping'; id: string }
  | { op: 'unsubscribe'; id: string; sub: string }
  | { op: 'subscribe'; id: string; channel: 'bars'; token: string; resolution: Resolution; since: number | null; metric: ChartMetric }
  | { op: 'subscribe'; id: string; channel: 'trades'; token: string; sinceId: number | null }
  | { op: 'subscribe'; id: string; channel: 'prices'; tokens: string[] }
  | { op: 'subscribe'; id: string; channel: 'overview'; token: string };

/** A `ping` message over this many bytes is refused (docs/api.md, Live stream). */
export const MAX_PING_BYTES = 1024;
const bad = (id: string | null, param: string, message: string): ProtoError => ({ id, code: 'invalid_parameter', message, param });

const isName = (v: unknown): v is string => typeof v === 'string' && v.length >= 1 && v.length <= MAX_NAME;
const isWhole = (v: unknown, max: number): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 && v <= max;

/** One frame's text as a command, or the error to answer it with. */
export function parseMessage(text: string): Command | ProtoError {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { id: null, code: 'invalid_body', message: 'a message must be a JSON object' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { id: null, code: 'invalid_body', message: 'a message must be a JSON object' };
  }
  const m = value as Record<string, unknown>;
  if (typeof m.id !== 'string' || m.id.length > 128) return bad(null, 'id', 'id must be a string of at most 128 characters');
  const id = m.id;
  switch (m.op) {
    case 'ping':
      // A ping is for liveness, not a way to make us parse and answer 64 KB messages.
      if (Buffer.byteLength(text) > MAX_PING_BYTES) return bad(id, 'op', `a ping may be at most ${MAX_PING_BYTES} bytes`);
      return { op: 'ping', id };
    case 'unsubscribe':
      if (typeof m.sub !== 'string' || m.sub.length > 64) return bad(id, 'sub', 'sub must be a subscription id');
      return { op: 'unsubscribe', id, sub: m.sub };
    case 'subscribe':
      return parseSubscribe(id, m);
    default:
      return bad(id, 'op', 'op must be subscribe, unsubscribe or ping');
  }
}

function parseSubscribe(id: string, m: Record<string, unknown>): Command | ProtoError {
  switch (m.channel) {
    case 'bars': {
      if (!isName(m.token)) return bad(id, 'token', 'token must name a token');
      const resolution = typeof m.resolution === 'string' ? parseResolution(m.resolution) : null;
      if (resolution === null) return bad(id, 'resolution', 'resolution must be one of the supported resolutions');
      if (m.since !== undefined && m.since !== null && !isWhole(m.since, MAX_TIME)) return bad(id, 'since', 'since must be a bar time in unix seconds');
      // price (default) or mcap: the price bars times the token's circulating supply (docs/api.md, Market-cap charts).
      if (m.metric !== undefined && m.metric !== null && m.metric !== 'price' && m.metric !== 'mcap') return bad(id, 'metric', 'metric must be price or mcap');
      const metric: ChartMetric = m.metric === 'mcap' ? 'mcap' : 'price';
      return { op: 'subscribe', id, channel: 'bars', token: m.token, resolution, since: (m.since as number | undefined) ?? null, metric };
    }
    case 'trades': {
      if (!isName(m.token)) return bad(id, 'token', 'token must name a token');
      if (m.sinceId !== undefined && m.sinceId !== null && !isWhole(m.sinceId, Number.MAX_SAFE_INTEGER)) {
        return bad(id, 'sinceId', 'sinceId must be a trade id (a non-negative integer)');
      }
      return { op: 'subscribe', id, channel: 'trades', token: m.token, sinceId: (m.sinceId as number | undefined) ?? null };
    }
    case 'prices': {
      const tokens = m.tokens;
      if (!Array.isArray(tokens) || tokens.length === 0 || !tokens.every(isName)) return bad(id, 'tokens', 'tokens must be a non-empty array of token names');
      if (tokens.length > MAX_PRICE_TOKENS) return bad(id, 'tokens', `tokens may name at most ${MAX_PRICE_TOKENS} tokens`);
      return { op: 'subscribe', id, channel: 'prices', tokens: tokens as string[] };
    }
    case 'overview':
      if (!isName(m.token)) return bad(id, 'token', 'token must name a token');
      return { op: 'subscribe', id, channel: 'overview', token: m.token };
    default:
      return bad(id, 'channel', 'channel must be bars, trades, prices or overview');
  }
}

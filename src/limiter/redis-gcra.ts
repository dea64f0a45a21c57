/**
 * The shared rate limiter on Redis (docs/operations.md, Many instances): the same GCRA as the
 * in-memory limiter (gcra.ts, docs/api.md, Rate limits), one value per bucket (its theoretical
 * arrival time, in microseconds), read and updated by ONE Lua script, so the sum of the requests
 * that any number of instances allow never exceeds what one bucket allows.
 *
 * One source of truth for the arithmetic: the rate's parameters come from rateParams() in
 * gcra.ts, and the script is gcra() line for line (same operations on the same IEEE doubles, so
 * the same answers; test/engines/redis-gcra.test.ts compares the two on random request times).
 * A bucket's key expires when the bucket is full again (a missing key and a full bucket are the
 * same thing, as in gcra.ts), so idle buckets cost Redis nothing.
 *
 * Time: by default the script reads Redis's own clock (TIME), one clock for every instance, so
 * their clocks' skew cannot hand out extra requests; a test passes its own clock instead.
 */
import type { Clock } from '../domain/clock.js';
import type { IpKey } from './ip-key.js';
import type { Limiter } from './limiter.js';
import { rateParams, toMicros, type Decision, type Rate } from './gcra.js';
import { evalScript, luaScript, type ScriptClient } from './redis-script.js';

export type { ScriptClient } from './redis-script.js';

/**
 * KEYS[1]: the bucket. ARGV: now in µs ('' = Redis's clock), interval µs, burst µs, consume (1/0).
 * Returns {allowed 1/0, remaining, reset seconds, retry-after seconds or -1}.
 * Numbers written back go through string.format('%.0f'): Lua's tostring() keeps 14 digits only.
 */
export const GCRA_SCRIPT = `
local now
if ARGV[1] == '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
else
  now = tonumber(ARGV[1])
end
local interval = tonumber(ARGV[2])
local burst = tonumber(ARGV[3])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
local function answer(allowed, stored, retry)
  local ahead = 0
  if stored > now then ahead = stored - now end
  local remaining = math.floor((burst - ahead) / interval)
  if remaining < 0 then remaining = 0 end
  return {allowed, remaining, math.ceil(ahead / 1000000), retry}
end
if ARGV[4] ~= '1' then return answer(1, tat, -1) end
local base = tat
if now > base then base = now end
local nxt = base + interval
if nxt - now <= burst then
  redis.call('SET', KEYS[1], string.format('%.0f', nxt), 'PX', string.format('%.0f', math.ceil((nxt - now) / 1000)))
  return answer(1, nxt, -1)
end
local retry = math.ceil((nxt - burst - now) / 1000000)
if retry < 1 then retry = 1 end
return answer(0, tat, retry)
`;

const GCRA = luaScript(GCRA_SCRIPT);
export const GCRA_SHA = GCRA.sha;

/**
 * The in-memory limiter's interface (limiter.ts), each answer a promise: the bucket is in Redis.
 * `sweep` has nothing to do (Redis expires full buckets), `size` and `ipTableBytes` report 0
 * (nothing is held in this process).
 */
export type AsyncLimiter = { [K in keyof Limiter]: (...args: Parameters<Limiter[K]>) => Promise<ReturnType<Limiter[K]>> };

export type RedisLimiterOptions = {
  client: ScriptClient;
  /** Prepended to every key ('rl:' by default): two limiters on one Redis use two prefixes. */
  prefix?: string;
  /** The clock to decide by; Redis's own clock (TIME) when omitted. */
  clock?: Clock;
};

/** A bucket's key: IP buckets by the two halves of their IpKey, tenant buckets by tenant id. */
export const ipBucketKey = (prefix: string, key: IpKey): string => `${prefix}ip:${key.hi.toString(16)}:${key.lo.toString(16)}`;
export const tenantBucketKey = (prefix: string, id: string): string => `${prefix}t:${id}`;

function toDecision(reply: unknown, rate: Rate, limit: number): Decision {
  if (!Array.isArray(reply) || reply.length !== 4 || !reply.every((n) => typeof n === 'number')) {
    throw new Error(`unexpected reply from the rate-limit script: ${JSON.stringify(reply)}`);
  }
  const [allowed, remaining, resetSeconds, retry] = reply as number[];
  const decision: Decision = { allowed: allowed === 1, limit, windowSeconds: rate.windowSeconds, remaining: remaining!, resetSeconds: resetSeconds! };
  if (retry! >= 0) decision.retryAfterSeconds = retry!;
  return decision;
}

/** A limiter whose buckets live in Redis, shared by every instance using the same prefix. */
export function createRedisLimiter(opts: RedisLimiterOptions): AsyncLimiter {
  const { client, clock } = opts;
  const prefix = opts.prefix ?? 'rl:';
  const decide = async (key: string, rate: Rate, consume: boolean): Promise<Decision> => {
    const { limit, intervalUs, burstUs } = rateParams(rate);
    const now = clock ? String(toMicros(clock.now())) : '';
    const reply = await evalScript(client, GCRA, key, [now, String(intervalUs), String(burstUs), consume ? '1' : '0']);
    return toDecision(reply, rate, limit);
  };
  return {
    ip: (key, rate, consume) => decide(ipBucketKey(prefix, key), rate, consume),
    tenant: (id, rate, consume) => decide(tenantBucketKey(prefix, id), rate, consume),
    sweep: async () => undefined,
    size: async () => ({ ips: 0, tenants: 0 }),
    ipTableBytes: async () => 0,
  };
}

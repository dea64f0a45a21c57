/**
 * Connection caps shared by every instance (docs/operations.md, Many instances): the open
 * connections of a group (a client IP's, or a caller's streams) counted in Redis, so a cap holds
 * across instances instead of per instance. A group is a sorted set of its connections, each
 * scored with the time its lease ends; admitting one is one Lua script (drop ended leases,
 * count, add), so instances admitting at once never pass the cap together. An instance renews
 * its connections' leases every ttl/3, so the connections of an instance that died stop counting
 * when their leases end (60 s by default), while a live instance's never lapse. A renewal writes
 * every connection the instance holds, present or not: a Redis that restarted empty, and the
 * connections the instance admitted on its own while Redis was away (`adopt`), count again at
 * the next renewal. Time is Redis's own clock (TIME), one clock for every instance.
 */
import { randomUUID } from 'node:crypto';
import { evalScript, luaScript, type ScriptClient } from './redis-script.js';

/** KEYS[1]: the group. ARGV: member, cap, lease ms. 1 when admitted, 0 when the group is full. */
export const ACQUIRE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
redis.call('PEXPIRE', KEYS[1], ttl)
return 1
`;

/** KEYS[1]: the group. ARGV: lease ms, then the members to renew (written again when missing). */
export const RENEW_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[1])
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], now + ttl, ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], ttl)
return 1
`;

const SCRIPTS = { acquire: luaScript(ACQUIRE_SCRIPT), renew: luaScript(RENEW_SCRIPT) };

/** What the counter needs of a node-redis client (v5+). */
export type ConnectionClient = ScriptClient & { zRem(key: string, member: string): Promise<unknown> };

export type ConnectionCounterOptions = {
  client: ConnectionClient;
  /** This instance's name: part of every member, so leases show whose they are. */
  instanceId: string;
  /** Prepended to every key ('conn:' by default). */
  prefix?: string;
  /** How long a connection counts without renewal (default 60 s). */
  leaseMs?: number;
};

export type ConnectionCounter = {
  /** Counts one more connection of `group` if fewer than `cap` are open: its ticket, or null when full. */
  acquire(group: string, cap: number): Promise<string | null>;
  /**
   * Counts a connection this instance admitted without Redis (it was away): its ticket. Redis
   * hears of it at the next renewal, whatever the cap.
   */
  adopt(group: string): string;
  /** Stops counting the connection of that ticket. */
  release(ticket: string): Promise<void>;
  /** Connections this instance holds now. */
  held(): number;
  /** Connections this instance holds now in `group` (admitted or adopted, not yet released). */
  heldIn(group: string): number;
  /** Stops renewing (the instance's connections stop counting when their leases end). */
  stop(): void;
};

export function createRedisConnectionCounter(opts: ConnectionCounterOptions): ConnectionCounter {
  const { client } = opts;
  const prefix = opts.prefix ?? 'conn:';
  const leaseMs = opts.leaseMs ?? 60_000;
  /** group key -> members this instance holds in it. */
  const mine = new Map<string, Set<string>>();
  const byTicket = new Map<string, { key: string; member: string }>();

  const run = (script: keyof typeof SCRIPTS, key: string, args: string[]): Promise<unknown> => evalScript(client, SCRIPTS[script], key, args);

  const renewAll = async () => {
    for (const [key, members] of mine) {
      if (members.size > 0) await run('renew', key, [String(leaseMs), ...members]).catch(() => undefined);
    }
  };
  const timer = setInterval(() => void renewAll(), Math.max(10, Math.floor(leaseMs / 3)));
  timer.unref();

  const hold = (key: string, member: string): string => {
    let set = mine.get(key);
    if (!set) mine.set(key, (set = new Set()));
    set.add(member);
    byTicket.set(member, { key, member });
    return member;
  };
  const newMember = () => `${opts.instanceId}:${randomUUID()}`;

  return {
    async acquire(group, cap) {
      const key = `${prefix}${group}`;
      const member = newMember();
      const ok = await run('acquire', key, [member, String(cap), String(leaseMs)]);
      return ok === 1 ? hold(key, member) : null;
    },
    adopt: (group) => hold(`${prefix}${group}`, newMember()),
    async release(ticket) {
      const held = byTicket.get(ticket);
      if (!held) return;
      byTicket.delete(ticket);
      const set = mine.get(held.key);
      set?.delete(held.member);
      if (set?.size === 0) mine.delete(held.key);
      await client.zRem(held.key, held.member);
    },
    held: () => byTicket.size,
    heldIn: (group) => mine.get(`${prefix}${group}`)?.size ?? 0,
    stop: () => clearInterval(timer),
  };
}

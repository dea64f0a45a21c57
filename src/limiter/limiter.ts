/**
 * The in-memory rate limiter (docs/api.md, Rate limits): GCRA buckets (gcra.ts, one number per bucket,
 * the theoretical arrival time), one per client IP in a compact typed-array table (ip-table.ts)
 * and one per tenant in a Map. Framework-free; time comes from the injected clock. Idle buckets
 * (TAT in the past, i.e. full) are reclaimed by a sweep at most once per `sweepEveryMs`, run on
 * the request path, and whenever the IP table would have to grow.
 *
 * Single-threaded: each call decides and stores synchronously, so concurrent requests can never be
 * admitted past the limit.
 */
import { randomInt } from 'node:crypto';
import type { Clock } from '../domain/clock.js';
import { gcra, toMicros, type Decision, type Rate } from './gcra.js';
import { IpTable } from './ip-table.js';
import type { IpKey } from './ip-key.js';

export type Limiter = {
  /** Counts one request against an IP bucket (or only reads it when `consume` is false). */
  ip(key: IpKey, rate: Rate, consume: boolean): Decision;
  /** Counts one request against a tenant's bucket (or only reads it when `consume` is false). */
  tenant(id: string, rate: Rate, consume: boolean): Decision;
  /** Drops every idle bucket now. */
  sweep(): void;
  /** Buckets held (IP, tenant), including idle ones not yet reclaimed. */
  size(): { ips: number; tenants: number };
  /** Bytes held by the IP table's arrays. */
  ipTableBytes(): number;
};

export function createLimiter(opts: { clock: Clock; seed?: number; sweepEveryMs?: number }): Limiter {
  const { clock } = opts;
  const sweepEveryUs = (opts.sweepEveryMs ?? 60_000) * 1000;
  const ips = new IpTable(opts.seed ?? randomInt(0, 2 ** 32));
  const tenants = new Map<string, number>();
  let lastSweepUs = toMicros(clock.now());

  const sweep = (nowUs: number): void => {
    lastSweepUs = nowUs;
    ips.sweep(nowUs);
    for (const [id, tat] of tenants) if (tat <= nowUs) tenants.delete(id);
  };

  const now = (): number => {
    const nowUs = toMicros(clock.now());
    if (nowUs - lastSweepUs >= sweepEveryUs) sweep(nowUs);
    return nowUs;
  };

  return {
    ip(key, rate, consume) {
      const nowUs = now();
      const before = ips.get(key.hi, key.lo);
      const { decision, tat } = gcra(before, nowUs, rate, consume);
      if (tat !== before) ips.set(key.hi, key.lo, tat, nowUs);
      return decision;
    },
    tenant(id, rate, consume) {
      const nowUs = now();
      const before = tenants.get(id) ?? 0;
      const { decision, tat } = gcra(before, nowUs, rate, consume);
      if (tat !== before) tenants.set(id, tat);
      return decision;
    },
    sweep: () => sweep(toMicros(clock.now())),
    size: () => ({ ips: ips.size, tenants: tenants.size }),
    ipTableBytes: () => ips.bytes,
  };
}

/**
 * Limiter memory: bytes per bucket for N distinct client IPs (docs/api.md, Rate limits; docs/operations.md, Benchmark and performance). Each
 * IP makes one counted request through the real limiter; the figure is the growth of the V8 heap
 * plus array buffers, divided by N. Run with `npx tsx --expose-gc bench/limiter-memory.ts [N]`;
 * without --expose-gc garbage is not collected first and the figure is an over-estimate.
 */
import { pathToFileURL } from 'node:url';
import { createLimiter } from '../src/limiter/limiter.js';
import { ipKeyFromBytes } from '../src/limiter/ip-key.js';

export type LimiterMemory = {
  buckets: number;
  heapBytes: number;
  arrayBufferBytes: number;
  bytesPerBucket: number;
  /** Whether garbage was collected before each reading (node --expose-gc). */
  gc: boolean;
};

export function measureLimiterMemory(count = 1_000_000): LimiterMemory {
  const gc = (globalThis as { gc?: () => void }).gc;
  const collect = () => {
    gc?.();
    gc?.();
  };
  // The clock stands still, so every bucket stays live (none is reclaimed during the run).
  const clock = { now: () => 1_700_000_000_000 };
  collect();
  const before = process.memoryUsage();
  let limiter: ReturnType<typeof createLimiter> | null = createLimiter({ clock, seed: 12345 });
  const rate = { limit: 300, windowSeconds: 60 };
  const bytes = [0, 0, 0, 0];
  for (let i = 0; i < count; i++) {
    // Distinct public-looking IPv4 addresses from 11.0.0.0 upwards.
    const n = 0x0b000000 + i;
    bytes[0] = n >>> 24;
    bytes[1] = (n >>> 16) & 0xff;
    bytes[2] = (n >>> 8) & 0xff;
    bytes[3] = n & 0xff;
    limiter.ip(ipKeyFromBytes(bytes), rate, true);
  }
  collect();
  const after = process.memoryUsage();
  const buckets = limiter.size().ips;
  limiter = null;
  const heapBytes = after.heapUsed - before.heapUsed;
  const arrayBufferBytes = after.arrayBuffers - before.arrayBuffers;
  return { buckets, heapBytes, arrayBufferBytes, bytesPerBucket: (heapBytes + arrayBufferBytes) / count, gc: gc !== undefined };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const count = Number(process.argv[2] ?? 1_000_000);
  const m = measureLimiterMemory(count);
  console.log(
    `limiter: ${m.buckets.toLocaleString('en')} IP buckets, heap +${(m.heapBytes / 1e6).toFixed(1)} MB, ` +
      `array buffers +${(m.arrayBufferBytes / 1e6).toFixed(1)} MB, ${m.bytesPerBucket.toFixed(1)} bytes per bucket` +
      (m.gc ? '' : ' (run with --expose-gc for an exact figure)'),
  );
}

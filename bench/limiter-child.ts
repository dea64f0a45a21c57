/**
 * Runs the limiter memory measurement (bench/limiter-memory.ts) in a process of its own, started
 * with --expose-gc by bench/run.ts, and prints the result as one JSON line on stdout.
 */
import { measureLimiterMemory } from './limiter-memory.js';

const count = Number(process.argv[2] ?? 1_000_000);
process.stdout.write(JSON.stringify(measureLimiterMemory(count)) + '\n');

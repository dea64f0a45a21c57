/**
 * The worker of bench/ingest-stream-thread.ts: runs the ingest stream with the server's clock
 * computed from its origin, and answers 'stop' with the stream's figures.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { startIngestStream } from './ingest-stream.js';
import type { ThreadStreamOptions } from './ingest-stream-thread.js';

const { anchorMs, clockStartMs, ...opts } = workerData as ThreadStreamOptions;
const stream = startIngestStream({ ...opts, serverNow: () => Math.floor((anchorMs + Date.now() - clockStartMs) / 1000) });
parentPort!.once('message', () => {
  void stream.stop().then((stats) => parentPort!.postMessage(stats));
});

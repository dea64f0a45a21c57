/**
 * The live ingest stream on a thread of its own (docs/operations.md, Benchmark). The load runs'
 * autocannon answers thousands of requests a second on the bench's main thread; a post timed
 * there waited for those callbacks too, so its time measured the load generator's event loop as
 * much as the server. An indexer or a partner backend posts from a process of its own: here the
 * stream's posts are made and timed on a worker thread that does nothing else.
 */
import { Worker } from 'node:worker_threads';
import type { IngestStream, StreamOptions, StreamStats } from './ingest-stream.js';

/** The stream's options without the clock function, and the server clock's origin instead. */
export type ThreadStreamOptions = Omit<StreamOptions, 'serverNow'> & { anchorMs: number; clockStartMs: number };

export function startIngestStreamThread(opts: ThreadStreamOptions): IngestStream {
  const worker = new Worker(new URL('./ingest-stream-worker.js', import.meta.url), { workerData: opts });
  let failed: unknown = null;
  worker.on('error', (err) => (failed = err));
  return {
    stop: () =>
      new Promise<StreamStats>((resolve, reject) => {
        if (failed !== null) return reject(failed instanceof Error ? failed : new Error(String(failed)));
        worker.once('message', (stats: StreamStats) => {
          void worker.terminate();
          resolve(stats);
        });
        worker.once('error', reject);
        worker.postMessage('stop');
      }),
  };
}

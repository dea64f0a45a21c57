/**
 * WAL checkpoints on a worker thread (docs/api.md, Ingest limits). SQLite's automatic checkpoint runs
 * inside the COMMIT that crosses 1000 WAL pages, on the committing connection: after a large
 * ingest batch it copied tens of megabytes into the database file while the event loop waited
 * (150-460 ms measured). Here the server's connection never checkpoints; a worker with its own
 * connection runs PASSIVE checkpoints (which never block readers or the writer) once a second.
 * Not after every write: each checkpoint copies its pages into the file and syncs it, and at the
 * live ingest's five small commits a second that was two thirds of the ingest's CPU
 * (docs/operations.md, Benchmark). A second's writes are in one checkpoint, whatever their size.
 */
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';

export type Checkpointer = {
  close(): void;
};

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 5000');
parentPort.on('message', (m) => {
  if (m === 'close') {
    db.close();
    Atomics.store(workerData.closed, 0, 1);
    Atomics.notify(workerData.closed, 0);
    parentPort.close();
    return;
  }
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch {}
  parentPort.postMessage('done');
});
`;

/** How long close() waits for the worker's connection to close. */
const CLOSE_WAIT_MS = 5000;

/** A checkpoint this often (at most one runs at a time; a tick while one runs folds into the next). */
export const CHECKPOINT_EVERY_MS = 1000;

/** `onFail` runs if the worker cannot run (the caller then turns automatic checkpoints back on). */
export function startCheckpointer(path: string, onFail: () => void): Checkpointer {
  const module = createRequire(import.meta.url).resolve('better-sqlite3');
  // execArgv: [] so the worker does not load the parent's loaders (tsx), which kept processes alive.
  const closedFlag = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(WORKER, { eval: true, workerData: { path, module, closed: closedFlag }, execArgv: [] });
  let running = false;
  let again = false;
  let closed = false;
  const run = () => {
    if (closed) return;
    if (running) {
      again = true;
      return;
    }
    running = true;
    worker.postMessage('checkpoint');
  };
  worker.on('message', () => {
    running = false;
    if (again) {
      again = false;
      run();
    }
  });
  let failed = false;
  worker.on('error', () => {
    failed = true;
    if (closed) return;
    closed = true;
    onFail();
  });
  // After the listeners: adding a 'message' listener refs the worker again.
  worker.unref();
  const timer = setInterval(run, CHECKPOINT_EVERY_MS);
  timer.unref();
  return {
    /**
     * Waits (synchronously, at most CLOSE_WAIT_MS) until the worker's connection is closed, so a
     * caller may delete or replace the file right after: a connection left open on a deleted
     * file made the next one fail with "disk I/O error".
     */
    close() {
      const wasClosed = closed;
      closed = true;
      clearInterval(timer);
      if (!wasClosed && !failed) {
        worker.postMessage('close');
        Atomics.wait(closedFlag, 0, 0, CLOSE_WAIT_MS);
      }
      void worker.terminate();
    },
  };
}

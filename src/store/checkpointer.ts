/**
 * WAL checkpoints on a worker thread (README, Ingest limits). SQLite's automatic checkpoint runs
 * inside the COMMIT that crosses 1000 WAL pages, on the committing connection: after a large
 * ingest batch it copied tens of megabytes into the database file while the event loop waited
 * (150-460 ms measured). Here the server's connection never checkpoints; a worker with its own
 * connection runs PASSIVE checkpoints (which never block readers or the writer) after writes.
 */
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';

export type Checkpointer = {
  /** Asks for a checkpoint soon (at most one runs at a time; extra asks fold into the next). */
  kick(): void;
  close(): void;
};

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 5000');
parentPort.on('message', () => {
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch {}
  parentPort.postMessage('done');
});
`;

/** A checkpoint at least this often, besides those asked for after writes. */
export const CHECKPOINT_EVERY_MS = 1000;

/** `onFail` runs if the worker cannot run (the caller then turns automatic checkpoints back on). */
export function startCheckpointer(path: string, onFail: () => void): Checkpointer {
  const module = createRequire(import.meta.url).resolve('better-sqlite3');
  // execArgv: [] so the worker does not load the parent's loaders (tsx), which kept processes alive.
  const worker = new Worker(WORKER, { eval: true, workerData: { path, module }, execArgv: [] });
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
  worker.on('error', () => {
    if (closed) return;
    closed = true;
    onFail();
  });
  // After the listeners: adding a 'message' listener refs the worker again.
  worker.unref();
  // Writes that tell no one (sessions, key bookkeeping) still grow the WAL: checkpoint now and then.
  const timer = setInterval(run, CHECKPOINT_EVERY_MS);
  timer.unref();
  return {
    kick: run,
    close() {
      closed = true;
      clearInterval(timer);
      void worker.terminate();
    },
  };
}

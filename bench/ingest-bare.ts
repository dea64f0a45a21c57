/**
 * The bare side of the CLI ingest figure (bench/ingest-cli.ts), run as its own process so that
 * both sides pay a process start: reads an NDJSON file line by line, parses each line and inserts
 * its trades with one prepared INSERT each into a fresh store's trades table (the same schema and
 * indexes as the real store), BATCH trades a transaction; tokens get a plain INSERT so the trades
 * have their ids; nothing else (no validation, no derived rows).
 * Usage: node dist/bench/ingest-bare.js FILE STORE BATCH; prints the trades table's row count.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { openStore, writeTransaction } from '../src/store/sqlite/db.js';
import type { TradeRecord } from '../src/domain/records.js';
import { bareTradeInsert } from './bare-trade.js';

type Line = Record<string, unknown> & { type: string };

async function bareFileInsert(file: string, path: string, batch: number): Promise<number> {
  const store = openStore(path);
  try {
    const { db } = store;
    const insertToken = db.prepare('INSERT INTO tokens (address, symbol, name, decimals, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id');
    const insertTrade = bareTradeInsert(db);
    const ids = new Map<string, number>();
    let pending: Line[] = [];
    // The ingest's kind of transaction: statement journals in memory (docs/architecture.md, The store).
    const write = writeTransaction(
      db,
      (rows: Line[]) => {
        for (const r of rows) {
          if (r.type === 'token') {
            ids.set(r.address as string, (insertToken.get(r.address, r.symbol, r.name, r.decimals, r.createdAt, r.createdAt) as { id: number }).id);
          } else if (r.type === 'trade') {
            insertTrade(r as unknown as TradeRecord, ids.get(r.token as string));
          }
        }
      },
      { memoryJournal: true },
    );
    for await (const text of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
      if (text.trim() === '') continue;
      pending.push(JSON.parse(text) as Line);
      if (pending.length >= batch) {
        write(pending);
        pending = [];
      }
    }
    write(pending);
    return db.prepare('SELECT count(*) FROM trades').pluck().get() as number;
  } finally {
    store.close();
  }
}

const [file, path, batch] = process.argv.slice(2);
if (file === undefined || path === undefined || batch === undefined) {
  process.stderr.write('usage: ingest-bare FILE STORE BATCH\n');
  process.exit(2);
}
process.stdout.write(`${await bareFileInsert(file, path, Number(batch))}\n`);

/**
 * Trades messages follow the ingest's transactions (docs/api.md, Live stream): a large
 * POST /v1/ingest batch, one transaction written in slices, reaches a real WebSocket client as one
 * message. A CLI file written in transactions of 250 beside a SQLite server:
 * external-commits.test.ts; a message held while a SQLite write is open: write-gate.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { WRITE_SLICE } from '../../src/store/sqlite/sliced-write.js';
import { PG_INGEST_SLICE } from '../../src/store/pg/ingest-repo.js';
import { Client, expectedMessages, settle, startLive, tradesOf, type Live } from './support.js';
import { addToken } from '../udf/support.js';

let live: Live | undefined;
afterEach(async () => {
  await live?.stop();
  live = undefined;
});

describe('one trades message per ingest transaction', () => {
  it('sends a POST /v1/ingest batch written in several slices (one transaction) as one message', async () => {
    live = await startLive();
    const a = addToken(live, { symbol: 'TXA' }).address;
    const b = addToken(live, { symbol: 'TXB' }).address;
    const key = live.makeKey({ plan: 'enterprise', scopes: ['read', 'ingest'] });
    const c = await Client.open(`${live.wsBase}/v1/stream`);
    const ok = await c.request({ op: 'subscribe', channel: 'trades', token: a });
    // Several slices on either engine (SQLite's HTTP ingest writes 250 records a slice, PostgreSQL's
    // 1,000), and under 1,000 trades of token a, so one message can carry them all.
    const trades = tradesOf(a, b, Math.max(WRITE_SLICE, PG_INGEST_SLICE) + 10);
    const base = await live.services.repos.trades.maxId();
    const res = await live.http
      .post('/v1/ingest')
      .set('x-api-key', key.secret)
      .set('Content-Type', 'application/x-ndjson')
      .send(trades.map((t) => JSON.stringify(t)).join('\n'));
    expect(res.status).toBe(200);
    const expected = expectedMessages(trades, a, base, trades.length);
    await c.waitFor((m) => m.op === 'trades');
    await settle();
    expect(c.of(ok.sub, 'trades').map((m) => m.trades.map((t: { id: number }) => t.id))).toEqual(expected);
    expect(await live.services.repos.stream.commitEnds(base + 1, Number.MAX_SAFE_INTEGER)).toEqual([base + trades.length]);
    c.close();
  });
});

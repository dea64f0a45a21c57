import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aHolder, aMarket, aToken, aTrade, homeMarket, marketOf, ndjson, withMarket } from '../helpers/builders.js';
import { readRawTrades } from '../v1/naive.js';
import { tableRows } from './store-rows.js';

let t: TestApp;
afterEach(() => t?.close());

const ingestKey = () => t.makeKey({ scopes: ['read', 'ingest'] }).secret;
const post = (secret: string, type: string, body: string | Buffer) => t.http.post('/v1/ingest').set('x-api-key', secret).set('Content-Type', type).send(body);

/** Every row of the market-data tables, to show that a refused batch wrote nothing. */
const snapshot = () => tableRows(t, ['tokens', 'markets', 'trades', 'holders', 'candles', 'events', 'webhook_deliveries']);

describe('POST /v1/ingest', () => {
  it('ingests NDJSON through the ingest path and answers accepted and duplicates', async () => {
    t = makeTestApp();
    const secret = ingestKey();
    const token = aToken();
    const market = aMarket(token.address);
    const trades = [aTrade(token.address, { market: market.address }), aTrade(token.address, { market: market.address, blockTime: 1_700_000_300 })];
    const res = await post(secret, 'application/x-ndjson', ndjson([token, market, ...trades, aHolder(token.address)]));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ accepted: 5, duplicates: 0 });
    expect(await readRawTrades(t.store)).toHaveLength(2);
    // Same trades again: duplicates counted, not stored twice.
    const again = await post(secret, 'application/x-ndjson', ndjson(trades));
    expect(again.body).toEqual({ accepted: 0, duplicates: 2 });
    expect(await readRawTrades(t.store)).toHaveLength(2);
    // The read side sees it: the token's price is the last trade's.
    expect((await t.services.repos.tokens.byAddress(token.address))?.priceUsd).toBe(1);
  });

  it('accepts a JSON array and a charset parameter', async () => {
    t = makeTestApp();
    const secret = ingestKey();
    const token = aToken();
    const res = await post(secret, 'application/json; charset=utf-8', JSON.stringify([...withMarket(token), aTrade(token.address)]));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ accepted: 3, duplicates: 0 });
  });

  it('accepts an empty batch as nothing to do', async () => {
    t = makeTestApp();
    const secret = ingestKey();
    expect((await post(secret, 'application/x-ndjson', '')).body).toEqual({ accepted: 0, duplicates: 0 });
    expect((await post(secret, 'application/json', '[]')).body).toEqual({ accepted: 0, duplicates: 0 });
  });

  it('skips blank NDJSON lines but keeps line numbers', async () => {
    t = makeTestApp();
    const secret = ingestKey();
    const token = aToken();
    const body = `\n${JSON.stringify(token)}\n\r\n${JSON.stringify({ ...aTrade(token.address), side: 'hold' })}\n`;
    const res = await post(secret, 'application/x-ndjson', body);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ line: 4, error: expect.stringContaining('side') }]);
  });

  it('refuses an invalid NDJSON batch whole, naming each bad line, and writes nothing', async () => {
    t = makeTestApp();
    const secret = ingestKey();
    const known = aToken();
    await t.ingest([...withMarket(known), aTrade(known.address)]);
    const before = await snapshot();
    const fresh = aToken();
    const lines = [
      JSON.stringify(fresh),
      JSON.stringify(homeMarket(fresh.address)),
      JSON.stringify(aTrade(fresh.address)),
      '{not json',
      JSON.stringify(aTrade('So11111111111111111111111111111111111111112')),
      JSON.stringify({ ...aTrade(known.address), priceUsd: -1 }),
      JSON.stringify({ type: 'candle' }),
      '42',
    ];
    const res = await post(secret, 'application/x-ndjson', lines.join('\n'));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_body');
    expect(res.body.error.details).toEqual([
      { line: 4, error: 'not valid JSON' },
      { line: 5, error: 'unknown token So11111111111111111111111111111111111111112' },
      { line: 6, error: expect.stringContaining('priceUsd') },
      { line: 7, error: expect.stringContaining('type') },
      { line: 8, error: 'a record must be a JSON object' },
    ]);
    expect(await snapshot()).toEqual(before);
  });

  it('refuses a trade whose market is neither stored nor earlier in the batch, naming its item, and writes nothing', async () => {
    t = makeTestApp();
    const secret = ingestKey();
    const token = aToken();
    const before = await snapshot();
    // The market's record after the trade that names it does not count.
    const res = await post(secret, 'application/json', JSON.stringify([token, aTrade(token.address), homeMarket(token.address)]));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_body');
    expect(res.body.error.details).toEqual([{ line: 2, error: `unknown market ${marketOf(token.address)}` }]);
    expect(await snapshot()).toEqual(before);
    // Earlier in the batch, then stored: accepted, and the trade shows its market's dex.
    const first = await post(secret, 'application/json', JSON.stringify([...withMarket(token), aTrade(token.address, { blockTime: 1_700_000_100 })]));
    expect(first.body).toEqual({ accepted: 3, duplicates: 0 });
    const next = await post(secret, 'application/json', JSON.stringify([aTrade(token.address, { blockTime: 1_700_000_200 })]));
    expect(next.body).toEqual({ accepted: 1, duplicates: 0 });
    const trades = await t.http.get(`/v1/token/${token.address}/trades`).set('x-api-key', secret);
    expect(trades.body.trades.map((x: { blockTime: number; market: string; dex: string | null }) => [x.blockTime, x.market, x.dex])).toEqual([
      [1_700_000_200, marketOf(token.address), 'raydium'],
      [1_700_000_100, marketOf(token.address), 'raydium'],
    ]);
  });

  it('names bad records of a JSON array by their 1-based index, and writes nothing', async () => {
    t = makeTestApp();
    const secret = ingestKey();
    const token = aToken();
    const before = await snapshot();
    const res = await post(secret, 'application/json', JSON.stringify([token, homeMarket(token.address), { ...aTrade(token.address), wallet: 'x' }]));
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ line: 3, error: 'wallet is not a well-formed address' }]);
    expect(await snapshot()).toEqual(before);
  });

  it.each([
    ['application/json', '{"type":"token"}', 'the body must be a JSON array of records'],
    ['application/json', '[{"type":"token"', 'the body is not valid JSON'],
    ['application/json', 'null', 'the body must be a JSON array of records'],
    ['application/x-ndjson', Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), 'the body is not valid UTF-8'],
  ])('refuses a %s body %j with 400 invalid_body', async (type, body, message) => {
    t = makeTestApp();
    const res = await post(ingestKey(), type, body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_body');
    expect(res.body.error.message).toBe(message);
  });

  it.each(['text/plain', 'application/xml', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded'])(
    'refuses Content-Type %s with 415',
    async (type) => {
      t = makeTestApp();
      const res = await post(ingestKey(), type, 'a=b');
      expect(res.status).toBe(415);
      expect(res.body.error.code).toBe('unsupported_media_type');
    },
  );

  it('refuses a body without a Content-Type, a non-UTF-8 charset and a compressed body with 415', async () => {
    t = makeTestApp();
    const secret = ingestKey();
    const none = await t.http.post('/v1/ingest').set('x-api-key', secret).send(Buffer.from('[]'));
    expect(none.status).toBe(415);
    const latin = await post(secret, 'application/json; charset=iso-8859-1', '[]');
    expect(latin.status).toBe(415);
    const gz = await t.http.post('/v1/ingest').set('x-api-key', secret).set('Content-Type', 'application/json').set('Content-Encoding', 'gzip').send('[]');
    expect(gz.status).toBe(415);
  });

  it('refuses a body over 10 MB with 413, before reading it when Content-Length says so', async () => {
    t = makeTestApp();
    const secret = ingestKey();
    const token = aToken();
    const line = JSON.stringify(token) + '\n';
    const big = line.repeat(Math.ceil((10 * 1024 * 1024 + 1) / line.length));
    const res = await post(secret, 'application/x-ndjson', big);
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('payload_too_large');
    expect(await tableRows(t, ['tokens'])).toEqual([[]]);
  });

  it('refuses at once a declared Content-Length over 10 MB', async () => {
    t = makeTestApp();
    const { app } = t;
    const secret = ingestKey();
    const http = await import('node:http');
    const server = http.createServer(app.callback());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    try {
      // Sends only the headers: an answer proves the server did not wait for 11 MB of body.
      const status = await new Promise<number>((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/v1/ingest',
            headers: {
              'x-api-key': secret,
              'content-type': 'application/x-ndjson',
              'content-length': String(11 * 1024 * 1024),
            },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
            req.destroy();
          },
        );
        req.on('error', reject);
        req.flushHeaders();
      });
      expect(status).toBe(413);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('refuses a chunked body (no Content-Length) once it passes 10 MB', async () => {
    t = makeTestApp();
    const secret = ingestKey();
    const http = await import('node:http');
    const server = http.createServer(t.app.callback());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    try {
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/v1/ingest',
            headers: {
              'x-api-key': secret,
              'content-type': 'application/x-ndjson',
              'transfer-encoding': 'chunked',
            },
          },
          (res) => {
            let body = '';
            res.on('data', (c: Buffer) => (body += c.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          },
        );
        req.on('error', reject);
        const chunk = Buffer.alloc(1024 * 1024, 0x20);
        let sent = 0;
        const pump = () => {
          while (sent < 12) {
            sent++;
            if (!req.write(chunk)) return void req.once('drain', pump);
          }
          req.end();
        };
        pump();
      });
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.body).error.code).toBe('payload_too_large');
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('accepts a body just under the limit', async () => {
    t = makeTestApp();
    const secret = ingestKey();
    const token = aToken();
    const trades = Array.from({ length: 20_000 }, (_, i) => aTrade(token.address, { blockTime: 1_700_000_000 + i }));
    const body = ndjson([...withMarket(token), ...trades]);
    expect(body.length).toBeLessThan(10 * 1024 * 1024);
    expect(body.length).toBeGreaterThan(5 * 1024 * 1024);
    const res = await post(secret, 'application/x-ndjson', body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ accepted: 20_002, duplicates: 0 });
  });

  it('needs a key (401) with the ingest scope (403), and then writes nothing', async () => {
    t = makeTestApp();
    const token = aToken();
    const anon = await t.http
      .post('/v1/ingest')
      .set('Content-Type', 'application/x-ndjson')
      .send(ndjson([token]));
    expect(anon.status).toBe(401);
    expect(anon.headers['www-authenticate']).toBe('Bearer realm="api"');
    const readOnly = t.makeKey({ scopes: ['read'] }).secret;
    const res = await post(readOnly, 'application/x-ndjson', ndjson([token]));
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    expect(await tableRows(t, ['tokens'])).toEqual([[]]);
  });

  it('answers GET with 405', async () => {
    t = makeTestApp();
    const res = await t.http.get('/v1/ingest').set('x-api-key', ingestKey());
    expect(res.status).toBe(405);
  });
});

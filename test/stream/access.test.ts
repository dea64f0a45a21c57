/**
 * Who may connect to /v1/stream: the upgrade goes through the caller resolution and the limiter
 * of the HTTP routes (401 and 429 are ordinary answers in the envelope, the 101 carries
 * RateLimit-*), connection caps per bucket, and keys revoked or expired while connected (4401).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { IncomingMessage } from 'node:http';
import { Client, startLive, type Live } from './support.js';
import { openStore } from '../../src/store/sqlite/db.js';
import { createServices } from '../../src/services/index.js';
import { fakeClock } from '../helpers/make-test-app.js';

let live: Live | null = null;
let dir: string | null = null;
afterEach(async () => {
  await live?.stop();
  live = null;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

type Outcome = { status: number; headers: IncomingMessage['headers']; body: any; ws: WebSocket | null };

/** Tries an upgrade; gives the answer: 101 with the open socket, or the refusal and its JSON body. */
function tryUpgrade(url: string, headers: Record<string, string> = {}): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('upgrade', (res) => ws.once('open', () => resolve({ status: 101, headers: res.headers, body: null, ws })));
    ws.once('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text), ws: null }));
    });
    ws.once('error', (err) => reject(err));
  });
}

describe('the upgrade', () => {
  it('answers 101 with the RateLimit-* headers of the caller and counts one request in its bucket', async () => {
    live = await startLive({ env: { RATE_LIMIT_ANON: '50/60' } });
    const a = await tryUpgrade(`${live.wsBase}/v1/stream`);
    expect(a.status).toBe(101);
    expect(a.headers['ratelimit-limit']).toBe('50');
    expect(a.headers['ratelimit-remaining']).toBe('49');
    expect(a.headers['ratelimit-policy']).toBe('50;w=60');
    expect(a.headers['x-request-id']).toMatch(/^[\w.-]+$/);
    const after = await fetch(`${live.base}/healthz`);
    expect(after.headers.get('ratelimit-remaining')).toBe('49');
    a.ws!.close();
  });

  it('refuses an unknown key with 401 in the envelope before the upgrade, by header or ?key=', async () => {
    live = await startLive();
    const bad = 'svc_live_' + 'x'.repeat(40);
    for (const [url, headers] of [
      [`${live.wsBase}/v1/stream`, { 'x-api-key': bad }],
      [`${live.wsBase}/v1/stream?key=${bad}`, {}],
    ] as const) {
      const r = await tryUpgrade(url, headers);
      expect(r.status).toBe(401);
      expect(r.body.error).toMatchObject({ code: 'unauthorized', message: 'the API key is not valid' });
      expect(r.headers['www-authenticate']).toBe('Bearer realm="api"');
      expect(r.headers['ratelimit-limit']).toBe('300');
    }
  });

  it('accepts a valid key by ?key= and refuses a key without the read scope with 403', async () => {
    live = await startLive();
    const { secret } = live.makeKey();
    const ok = await tryUpgrade(`${live.wsBase}/v1/stream?key=${secret}`);
    expect(ok.status).toBe(101);
    expect(ok.headers['ratelimit-limit']).toBe('300');
    ok.ws!.close();
    const ingestOnly = live.makeKey({ scopes: ['ingest'] });
    const r = await tryUpgrade(`${live.wsBase}/v1/stream`, { 'x-api-key': ingestOnly.secret });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('forbidden');
  });

  it('answers 429 with Retry-After when the bucket is empty, before looking at the key', async () => {
    live = await startLive({ env: { RATE_LIMIT_ANON: '2/60' } });
    for (let i = 0; i < 2; i++) (await tryUpgrade(`${live.wsBase}/v1/stream`)).ws!.close();
    const r = await tryUpgrade(`${live.wsBase}/v1/stream`, { 'x-api-key': 'svc_live_' + 'y'.repeat(40) });
    expect(r.status).toBe(429);
    expect(r.body.error.code).toBe('rate_limited');
    expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(r.headers['ratelimit-remaining']).toBe('0');
  });

  it('answers a plain GET /v1/stream with 426', async () => {
    live = await startLive();
    const res = await live.http.get('/v1/stream');
    expect(res.status).toBe(426);
    expect(res.body.error).toMatchObject({ code: 'invalid_parameter', message: 'GET /v1/stream is a WebSocket: send Upgrade: websocket' });
    expect(res.headers.upgrade).toBe('websocket');
  });
});

describe('connection caps', () => {
  it('allows 10 anonymous connections per IP; the 11th is 429 rate_limited with Retry-After; a close frees a place', async () => {
    live = await startLive();
    const open: WebSocket[] = [];
    for (let i = 0; i < 10; i++) open.push((await tryUpgrade(`${live.wsBase}/v1/stream`)).ws!);
    const r = await tryUpgrade(`${live.wsBase}/v1/stream`);
    expect(r.status).toBe(429);
    expect(r.body.error).toMatchObject({ code: 'rate_limited', message: 'at most 10 open stream connections for this caller' });
    expect(r.headers['retry-after']).toBe('10');
    open[0]!.close();
    await new Promise((res) => open[0]!.once('close', res));
    await new Promise((res) => setTimeout(res, 50));
    const again = await tryUpgrade(`${live.wsBase}/v1/stream`);
    expect(again.status).toBe(101);
    for (const ws of [...open, again.ws!]) ws.close();
  });

  it('counts a tenant’s keys together: free plan 10 connections over two keys', async () => {
    live = await startLive();
    const a = live.makeKey();
    const b = live.makeKey({ tenantId: a.tenantId });
    const open: WebSocket[] = [];
    for (let i = 0; i < 10; i++) open.push((await tryUpgrade(`${live.wsBase}/v1/stream`, { 'x-api-key': i % 2 ? a.secret : b.secret })).ws!);
    const r = await tryUpgrade(`${live.wsBase}/v1/stream`, { 'x-api-key': a.secret });
    expect(r.status).toBe(429);
    // Anonymous callers from the same IP are another bucket.
    const anon = await tryUpgrade(`${live.wsBase}/v1/stream`);
    expect(anon.status).toBe(101);
    for (const ws of [...open, anon.ws!]) ws.close();
  });
});

describe('revocation and expiry while connected', () => {
  it('closes with 4401 the connections of a key revoked by another process', async () => {
    dir = mkdtempSync(join(tmpdir(), 'stream-'));
    const path = join(dir, 's.db');
    live = await startLive({ store: openStore(path) });
    const { secret, keyId } = live.makeKey();
    const other = live.makeKey();
    const c = await Client.open(`${live.wsBase}/v1/stream`, { 'x-api-key': secret });
    const d = await Client.open(`${live.wsBase}/v1/stream`, { 'x-api-key': other.secret });
    const cli = openStore(path);
    await createServices({ store: cli, clock: fakeClock() }).accounts.revokeKey(keyId);
    cli.close();
    expect(await c.closed()).toBe(4401);
    const pong = await d.request({ op: 'ping' });
    expect(pong.op).toBe('pong');
    d.close();
  });

  it('closes with 4401 once a rotated key passes its grace period', async () => {
    live = await startLive();
    const { secret, keyId, tenantId } = live.makeKey();
    await live.services.accounts.rotateKey(tenantId, keyId, 60);
    const c = await Client.open(`${live.wsBase}/v1/stream`, { 'x-api-key': secret });
    expect((await c.request({ op: 'ping' })).op).toBe('pong');
    live.clock.advance(61_000);
    expect(await c.closed()).toBe(4401);
  });
});

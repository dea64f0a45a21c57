/**
 * Structured access logs (pino): one JSON line per request carrying the request id (the one
 * answered in X-Request-Id), method, route pattern, status, duration and, for a keyed caller, the
 * tenant id; never the key, however it was sent.
 */
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { createLogger } from '../../src/logger.js';
import { aToken } from '../helpers/builders.js';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';

let t: TestApp;
afterEach(() => t?.close());

type Line = {
  level: number;
  msg: string;
  requestId?: string;
  method?: string;
  url?: string;
  route?: string;
  status?: number;
  durationMs?: number;
  tenantId?: string;
  keyId?: string;
};

function loggedApp(env: Record<string, string> = {}, level = 'info') {
  t = makeTestApp({ env });
  const raw: string[] = [];
  const logger = createLogger(level, { write: (s: string) => void raw.push(s) });
  const app = createApp({ config: t.config, store: t.store, clock: t.clock, services: t.services, logger });
  const requests = () => raw.map((l) => JSON.parse(l) as Line).filter((l) => l.msg === 'request');
  return { http: request(app.callback()), raw, requests };
}

describe('access log lines', () => {
  it('carry request id, method, route pattern, status and duration', async () => {
    const { http, requests } = loggedApp();
    const token = aToken();
    t.ingest([token]);
    const ok = await http.get(`/v1/token/${token.address}/overview`).set('X-Request-Id', 'trace-abc.1');
    expect(ok.status).toBe(200);
    const bad = await http.get('/udf/history?symbol=x&resolution=1&to=0x10');
    expect(bad.status).toBe(400);
    const lines = requests();
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ requestId: 'trace-abc.1', method: 'GET', route: '/v1/token/:address/overview', status: 200 });
    expect(lines[1]).toMatchObject({ requestId: bad.headers['x-request-id'], route: '/udf/history', status: 400 });
    for (const l of lines) {
      expect(typeof l.durationMs).toBe('number');
      expect(l.durationMs!).toBeGreaterThanOrEqual(0);
      expect(l.level).toBe(30);
      expect(l.tenantId).toBeUndefined();
    }
  });

  it('leave health probes out of the info log, and log them at debug', async () => {
    const info = loggedApp();
    expect((await info.http.get('/healthz')).status).toBe(200);
    expect((await info.http.get('/udf/time')).status).toBe(200);
    expect(info.requests().map((l) => [l.route, l.level])).toEqual([['/udf/time', 30]]);
    t.close();
    const debug = loggedApp({}, 'debug');
    expect((await debug.http.get('/healthz')).status).toBe(200);
    expect(debug.requests().map((l) => [l.route, l.status, l.level])).toEqual([['/healthz', 200, 20]]);
  });

  it('carry the tenant id of a keyed caller and the final status of refused requests', async () => {
    const { http, requests } = loggedApp({ RATE_LIMIT_ANON: '1/60' });
    const { secret, tenantId, keyId } = t.makeKey();
    expect((await http.get('/v1/me').set('x-api-key', secret)).status).toBe(200);
    expect((await http.get('/udf/time')).status).toBe(200);
    expect((await http.get(`/udf/time?key=${secret}x`)).status).toBe(429); // the IP bucket is empty
    expect((await http.get('/nothing-here')).status).toBe(429);
    const lines = requests();
    expect(lines[0]).toMatchObject({ route: '/v1/me', status: 200, tenantId, keyId });
    expect(lines[2]).toMatchObject({ status: 429 });
    expect(lines[2]!.tenantId).toBeUndefined();
    expect(lines[3]).toMatchObject({ status: 429 });
  });

  it('never carry a key, in a header, a Bearer token or ?key=', async () => {
    const { http, raw } = loggedApp();
    const { secret } = t.makeKey();
    await http.get('/v1/me').set('x-api-key', secret);
    await http.get('/v1/me').set('Authorization', `Bearer ${secret}`);
    await http.get(`/udf/time?key=${secret}`);
    await http.get(`/udf/time?key=${encodeURIComponent(secret)}&key=${secret}`);
    const all = raw.join('\n');
    expect(raw.length).toBeGreaterThanOrEqual(4);
    expect(all).not.toContain(secret.slice('svc_live_'.length));
    expect(all).toContain('[redacted]');
  });
});

/** Keys never reach logs: the access log of real requests, captured from an in-memory stream. */
import request from 'supertest';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { createLogger, redactUrl } from '../../src/logger.js';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { ROUTES, unknownKey, withQuery } from './support.js';

let t: TestApp;
afterEach(() => t?.close());

function loggedApp() {
  t = makeTestApp();
  const lines: string[] = [];
  const logger = createLogger('info', { write: (s: string) => void lines.push(s) });
  const app = createApp({ config: t.config, store: t.store, clock: t.clock, services: t.services, logger });
  return { http: request(app.callback()), lines };
}

describe('access logs', () => {
  it('log every request but never a key, whichever way it came', async () => {
    const { http, lines } = loggedApp();
    const { secret } = t.makeKey();
    const revoked = t.makeKey();
    await t.services.accounts.revokeKey(revoked.keyId);
    const bad = unknownKey();
    const enc = (s: string) => s.replace(/k/g, '%6B').replace(/_/g, '%5F');

    await http.get(withQuery(ROUTES.udf, `key=${secret}`));
    await http.get(withQuery(ROUTES.udf, `%6Bey=${secret}`)); // Koa decodes the name to `key`
    await http.get(withQuery(ROUTES.udf, `KEY=${enc(secret)}`));
    await http.get(withQuery(ROUTES.udf, `key=${bad}`));
    await http.get(withQuery(ROUTES.udf, `key=${revoked.secret}`));
    await http.get(withQuery(ROUTES.public, `symbol=${secret}`));
    await http.get(`/v1/token/${secret}/overview`);
    await http.get('/v1/me').set('x-api-key', secret);
    await http.get('/v1/me').set('Authorization', `Bearer ${bad}`);
    const created = await http.post('/v1/keys').set('x-api-key', secret).send({ name: 'n' });
    expect(created.status).toBe(201);
    const rotated = await http.post(`/v1/keys/${created.body.key.id}/rotate`).set('x-api-key', secret).send({ graceSeconds: 5 });
    expect(rotated.status).toBe(201);

    const requests = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request');
    expect(requests).toHaveLength(11);
    expect(requests.every((l) => typeof l.url === 'string' && typeof l.status === 'number')).toBe(true);
    expect(requests[0].url).toContain('key=[redacted]');
    expect(requests[7]).toMatchObject({ status: 200, tenantId: expect.any(String), keyId: expect.any(String) });

    const all = lines.join('\n');
    for (const s of [secret, revoked.secret, bad, created.body.secret, rotated.body.secret]) {
      const random = s.slice('svc_live_'.length);
      expect(all).not.toContain(random);
      expect(all).not.toContain(random.slice(0, 16));
      expect(all).not.toContain(enc(random));
    }
  });

  it('redact key headers wherever a request is logged by path', () => {
    const lines: string[] = [];
    const logger = createLogger('info', { write: (s: string) => void lines.push(s) });
    const secret = unknownKey();
    logger.info({ req: { headers: { 'x-api-key': secret, authorization: `Bearer ${secret}`, cookie: 'sid=1' } }, made: { secret } }, 'x');
    expect(lines.join('')).not.toContain(secret.slice(9));
    expect(JSON.parse(lines[0]!).req.headers['x-api-key']).toBe('[redacted]');
  });
});

describe('redactUrl', () => {
  it('keeps URLs without secrets as they were', () => {
    for (const url of ['/udf/history?symbol=BONK&resolution=15', '/v1/me', '/v1/token/abc/trades?limit=10&cursor=xyz', '/x?flag', '/x?a=1&&b=2']) {
      expect(redactUrl(url)).toBe(url);
    }
  });

  it('replaces secret-named parameters however their names are spelt or encoded', () => {
    expect(redactUrl('/udf/x?a=1&key=abc&b=2')).toBe('/udf/x?a=1&key=[redacted]&b=2');
    expect(redactUrl('/udf/x?%6Bey=abc')).toBe('/udf/x?%6Bey=[redacted]');
    expect(redactUrl('/udf/x?Api_Key=abc&token=t')).toBe('/udf/x?Api_Key=[redacted]&token=[redacted]');
    expect(redactUrl('/udf/x?key=%E0%A4%A')).toBe('/udf/x?key=[redacted]'); // malformed encoding
  });

  it('never lets a key-like value through, wherever it sits (property)', () => {
    const random = fc.string({ unit: fc.constantFrom(...'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'), minLength: 32, maxLength: 60 });
    const junk = fc.string({ maxLength: 20 });
    fc.assert(
      fc.property(random, junk, junk, fc.constantFrom('path', 'name', 'value', 'encoded-value'), (r, before, after, where) => {
        const key = `svc_live_${r}`;
        const e = (s: string) => encodeURIComponent(s);
        const url =
          where === 'path'
            ? `/${e(before)}/${key}/${e(after)}?x=${e(after)}`
            : where === 'name'
              ? `/p?${e(before)}&${key}=1`
              : where === 'value'
                ? `/p?${e(before)}=${e(before)}&q=${key}&z=${e(after)}`
                : `/p?q=${e(key).replace(/_/g, '%5F')}`;
        expect(redactUrl(url)).not.toContain(r.slice(0, 16));
      }),
    );
  });
});

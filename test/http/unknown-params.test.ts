import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aToken, aTrade, withMarket } from '../helpers/builders.js';

let t: TestApp;
afterEach(() => t?.close());

describe('unknown query parameters', () => {
  it('are 400 invalid_parameter naming the parameter on /v1 routes, so a misspelt `from` never answers other data', async () => {
    t = makeTestApp();
    const tok = aToken();
    t.ingest([...withMarket(tok), aTrade(tok.address, { blockTime: 1_699_999_000 })]);
    const res = await t.http.get(`/v1/token/${tok.address}/trades?limit=5&form=1699990000`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param: 'form', message: 'form is not a parameter of this route' });
  });

  it('are refused on a route that takes no parameters at all', async () => {
    t = makeTestApp();
    const tok = aToken();
    t.ingest([tok]);
    const res = await t.http.get(`/v1/token/${tok.address}/overview?window=24h`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param: 'window' });
  });

  it('are refused on keyed routes after the key check (no key: 401 first)', async () => {
    t = makeTestApp();
    expect((await t.http.get('/v1/me?verbose=1')).status).toBe(401);
    const { secret } = t.makeKey();
    const res = await t.http.get('/v1/me?verbose=1').set('x-api-key', secret);
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('verbose');
  });

  it('are ignored on /udf, where TradingView adapters add their own', async () => {
    t = makeTestApp();
    const tok = aToken();
    t.ingest([tok]);
    const res = await t.http.get(`/udf/symbols?symbol=${tok.address}&adapterVersion=3&foo=bar`);
    expect(res.status).toBe(200);
    expect(res.body.ticker).toBe(tok.address);
  });
});

/**
 * Defaults live in the route schemas (docs/architecture.md, Declaring a route), so /openapi.json
 * shows each one as the parameter's or field's `default`, and the route answers with it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';

type Schema = { default?: unknown; properties?: Record<string, Schema> };
type Op = { parameters: { name: string; in: string; schema: Schema }[]; requestBody?: { content: Record<string, { schema: Schema }> } };
let t: TestApp;
let paths: Record<string, Record<string, Op>>;

beforeAll(async () => {
  t = makeTestApp();
  paths = (await t.http.get('/openapi.json')).body.paths;
});
afterAll(() => t.close());

const queryDefault = (path: string, name: string) => paths[path]!.get!.parameters.find((p) => p.in === 'query' && p.name === name)?.schema.default;
const bodyDefault = (path: string, field: string) => paths[path]!.post!.requestBody!.content['application/json']!.schema.properties![field]!.default;

describe('/openapi.json defaults', () => {
  it('shows the query defaults the handlers receive', () => {
    expect(queryDefault('/v1/token/{address}/trades', 'limit')).toBe('100');
    expect(queryDefault('/v1/token/{address}/top-traders', 'window')).toBe('24h');
    expect(queryDefault('/v1/market/trending', 'limit')).toBe('20');
    expect(queryDefault('/v1/events', 'limit')).toBe('100');
    expect(queryDefault('/udf/search', 'limit')).toBe('30');
    expect(queryDefault('/udf/history', 'currencyCode')).toBe('USD');
    expect(queryDefault('/udf/history', 'to')).toBeUndefined();
  });

  it('shows the body defaults of creating and rotating a key', () => {
    expect(bodyDefault('/v1/keys', 'scopes')).toEqual(['read']);
    expect(bodyDefault('/v1/keys', 'name')).toBeNull();
    expect(bodyDefault('/v1/keys/{id}/rotate', 'graceSeconds')).toBe(0);
  });

  it('answers with those defaults when the request leaves them out', async () => {
    const { secret } = t.makeKey({ scopes: ['read', 'manage'] });
    const made = await t.http.post('/v1/keys').set('x-api-key', secret).send({});
    expect(made.status).toBe(201);
    expect(made.body.key).toMatchObject({ name: null, scopes: ['read'] });
    const rotated = await t.http
      .post(`/v1/keys/${made.body.key.id as string}/rotate`)
      .set('x-api-key', secret)
      .send({});
    expect(rotated.status).toBe(201);
    expect(rotated.body.previous.expiresAt).toBe(t.clock.seconds());
  });
});

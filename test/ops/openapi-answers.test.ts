/**
 * The typed contract against real answers: every documented route is called on an app with data
 * (tokens, trades, holders, markets, a key, a subscription, events), and each 2xx answer must
 * validate against the route's zod response schema (strict: no undocumented field) AND against
 * the JSON Schema /openapi.json shows for it (read back with z.fromJSONSchema). Each answer's
 * status must be one the document lists. Every example validates against its schema too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { documented, openApiPath } from '../../src/http/openapi.js';
import type { RouteSpec } from '../../src/http/route.js';
import { contractCalls, contractWorld, send, type ContractWorld } from './openapi-support.js';

type Media = { schema: Record<string, unknown>; example?: unknown };
type Doc = { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, Media> }> }>> };

let w: ContractWorld;
let doc: Doc;
let specs: RouteSpec[];
beforeAll(async () => {
  w = await contractWorld();
  doc = (await w.t.http.get('/openapi.json')).body as Doc;
  specs = w.t.app.routes.filter(documented);
});
afterAll(() => w?.t.close());

const specOf = (method: string, route: string) => specs.find((s) => s.method === method && s.path === route)!;
const mediaOf = (spec: RouteSpec, status: number) =>
  doc.paths[openApiPath(spec.path)]![spec.method]!.responses[String(status)]?.content?.[spec.responseType ?? 'application/json'];

/** The issues of `value` against a schema, as one readable line each (empty when it validates). */
const issues = (schema: z.ZodType, value: unknown): string[] => {
  const r = schema.safeParse(value);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('real answers against the documented schemas', () => {
  it('every documented route answers, on real data, bodies that validate against its zod schema and its JSON Schema', async () => {
    let newKeyId = '';
    const seen = new Map<string, number>();
    const bodies = new Map<string, unknown[]>();
    for (const call of contractCalls(w, { newKeyId: () => newKeyId })) {
      const spec = specOf(call.method, call.route);
      const where = `${call.method.toUpperCase()} ${typeof call.url === 'string' ? call.url : call.route}`;
      expect(spec, where).toBeDefined();
      const res = await send(w, call);
      expect([200, 201], `${where}: ${res.status} ${res.text.slice(0, 300)}`).toContain(res.status);
      expect(spec.statuses ?? [200], `${where} answered ${res.status}, not a documented status`).toContain(res.status);
      const body: unknown = spec.responseType === 'text/plain' ? res.text : res.body;
      if (spec.responseType === 'text/plain') expect(res.headers['content-type']).toMatch(/^text\/plain/);
      else expect(res.headers['content-type']).toMatch(/^application\/json/);

      expect(issues(spec.response!, body), `${where} against its zod schema`).toEqual([]);
      const media = mediaOf(spec, res.status);
      expect(media, `${where}: no ${res.status} content in the document`).toBeDefined();
      expect(issues(z.fromJSONSchema(media!.schema as never), body), `${where} against its JSON Schema`).toEqual([]);

      if (call.method === 'post' && call.route === '/v1/keys') newKeyId = (res.body as { key: { id: string } }).key.id;
      const k = `${call.method} ${call.route}`;
      seen.set(k, (seen.get(k) ?? 0) + 1);
      bodies.set(k, [...(bodies.get(k) ?? []), body]);
    }
    // The answers covered each shape a route has (so a nullable or optional field was seen both ways).
    const got = (k: string) => JSON.stringify(bodies.get(k));
    expect(got('get /v1/token/:address/trades')).toMatch(/"nextCursor":"[^"]+".*"nextCursor":null/);
    expect(got('get /udf/history')).toMatch(/"s":"ok".*"s":"no_data","nextTime":\d+.*\{"s":"no_data"\}/);
    expect(got('get /udf/quotes')).toMatch(/"s":"ok".*"s":"error"/);
    expect(got('get /udf/marks')).toMatch(/"label":\["[BS]".*"label":\[\]/);
    expect(got('post /v1/tokens/register')).toMatch(/"webhookSecret":"[^"]+"/);
    expect(got('get /v1/token/:address/holders')).toMatch(/"percent":\d.*"percent":null/);
    expect(got('get /v1/prices')).toMatch(/"priceUsd":\d.*:null/);
    expect(got('get /v1/market/gainers')).toMatch(/"rank":1/);
    expect(got('get /v1/events')).toMatch(/"type":"trades".*"trades":\[\{"id"/);
    // Every documented route was answered at least once.
    expect([...seen.keys()].sort()).toEqual(specs.map((s) => `${s.method} ${s.path}`).sort());
  });

  it('is strict: an undocumented field, a missing one, or a wrong type fails both checks', () => {
    const spec = specOf('get', '/v1/token/:address/holders');
    const json = z.fromJSONSchema(mediaOf(spec, 200)!.schema as never);
    const good = spec.example as { totalHolders: number; holders: Record<string, unknown>[] };
    const bad = [
      { ...good, extra: 1 },
      { holders: good.holders },
      { ...good, holders: [{ ...good.holders[0], percent: '5' }] },
      { ...good, holders: [{ ...good.holders[0], valueUsd: undefined }] },
    ];
    for (const value of bad) {
      expect(spec.response!.safeParse(value).success, JSON.stringify(value)).toBe(false);
      expect(json.safeParse(value).success, JSON.stringify(value)).toBe(false);
    }
    expect(spec.response!.safeParse(good).success).toBe(true);
    expect(json.safeParse(good).success).toBe(true);
  });
});

describe('examples', () => {
  it('every documented route has a 2xx schema and one example that validates against it, as shown in the document', () => {
    expect(specs.length).toBeGreaterThan(25);
    for (const spec of specs) {
      const where = `${spec.method} ${spec.path}`;
      expect(spec.response, `${where} has no response schema`).toBeDefined();
      expect(spec.example, `${where} has no example`).toBeDefined();
      expect(issues(spec.response!, spec.example), `${where} example against its zod schema`).toEqual([]);
      for (const status of spec.statuses ?? [200]) {
        const media = mediaOf(spec, status)!;
        expect(media.example, where).toEqual(spec.example);
        expect(media.schema, `${where}: the document shows zod's own JSON Schema of the response`).toEqual(
          (({ $schema: _, ...rest }) => rest)(z.toJSONSchema(spec.response!, { io: 'output', unrepresentable: 'any' }) as Record<string, unknown>),
        );
        expect(issues(z.fromJSONSchema(media.schema as never), media.example), `${where} example against its JSON Schema`).toEqual([]);
      }
    }
  });
});

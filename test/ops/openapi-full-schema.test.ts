/**
 * "Full schema" (docs/api.md, Operations): every schema in /openapi.json says what its value is. Walked
 * through every parameter, body, answer and component: no schema is `{}` or lacks a type, every
 * object lists its properties, and no answer object is open (additionalProperties is false, or a
 * typed schema for a map such as prices by address). Request bodies may be open where the
 * validator ignores unknown fields (ingest records), but are typed all the same.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';

type Schema = Record<string, unknown>;
let t: TestApp;
let doc: Record<string, unknown>;
beforeAll(async () => {
  t = makeTestApp();
  doc = (await t.http.get('/openapi.json')).body as Record<string, unknown>;
});
afterAll(() => t.close());

const COMPOSITION = ['anyOf', 'oneOf', 'allOf'] as const;

/** The problems of a schema and all the schemas inside it; `open` allows objects without additionalProperties. */
function problems(schema: Schema, where: string, open: boolean): string[] {
  const out: string[] = [];
  const keys = Object.keys(schema).filter((k) => !['description', 'default', 'examples', 'example', 'title'].includes(k));
  if (keys.length === 0) return [`${where}: schema is {}`];
  if (schema.$ref !== undefined) return [];
  const composed = COMPOSITION.filter((k) => Array.isArray(schema[k]));
  if (schema.type === undefined && composed.length === 0) out.push(`${where}: no type`);
  for (const k of composed) (schema[k] as Schema[]).forEach((s, i) => out.push(...problems(s, `${where}.${k}[${i}]`, open)));
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes('object')) {
    const ap = schema.additionalProperties;
    if (schema.properties === undefined && (ap === undefined || typeof ap === 'boolean')) out.push(`${where}: object without properties`);
    if (ap === true || (!open && ap === undefined)) out.push(`${where}: open additionalProperties`);
    for (const [name, s] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) out.push(...problems(s, `${where}.${name}`, open));
    if (ap !== undefined && typeof ap === 'object') out.push(...problems(ap as Schema, `${where}[*]`, open));
  }
  if (types.includes('array')) {
    if (schema.items === undefined) out.push(`${where}: array without items`);
    else out.push(...problems(schema.items as Schema, `${where}[]`, open));
  }
  return out;
}

type Op = {
  parameters: { name: string; schema: Schema }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { $ref?: string; content?: Record<string, { schema: Schema }> }>;
};

describe('/openapi.json has a full schema everywhere', () => {
  it('types every parameter, body, answer and component, and no answer object is open', () => {
    const paths = doc.paths as Record<string, Record<string, Op>>;
    const found: string[] = [];
    let answers = 0;
    for (const [path, ops] of Object.entries(paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const at = `${method.toUpperCase()} ${path}`;
        for (const p of op.parameters) found.push(...problems(p.schema, `${at} parameter ${p.name}`, false));
        for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) found.push(...problems(media.schema, `${at} body ${type}`, true));
        const successes = Object.entries(op.responses).filter(([status]) => /^2/.test(status));
        expect(successes.length, `${at} has a 2xx answer`).toBeGreaterThan(0);
        for (const [status, res] of successes) {
          expect(res.content, `${at} ${status} has a body`).toBeDefined();
          for (const [type, media] of Object.entries(res.content!)) {
            found.push(...problems(media.schema, `${at} ${status} ${type}`, false));
            answers++;
          }
        }
      }
    }
    const components = doc.components as { schemas: Record<string, Schema>; headers: Record<string, { schema: Schema }> };
    for (const [name, s] of Object.entries(components.schemas)) found.push(...problems(s, `components.schemas.${name}`, false));
    for (const [name, h] of Object.entries(components.headers)) found.push(...problems(h.schema, `components.headers.${name}`, false));
    expect(answers).toBeGreaterThan(25);
    expect(found).toEqual([]);
  });

  it('finds what it looks for: {} , a missing type and an open object are reported', () => {
    expect(problems({}, 'x', false)).toEqual(['x: schema is {}']);
    expect(problems({ description: 'only words' }, 'x', false)).toEqual(['x: schema is {}']);
    expect(problems({ minimum: 1 }, 'x', false)).toEqual(['x: no type']);
    expect(problems({ type: 'object', properties: { a: { type: 'string' } } }, 'x', false)).toEqual(['x: open additionalProperties']);
    expect(problems({ type: 'object', properties: { a: {} }, additionalProperties: false }, 'x', false)).toEqual(['x.a: schema is {}']);
    expect(problems({ type: 'array', items: { anyOf: [{ type: 'null' }, {}] } }, 'x', false)).toEqual(['x[].anyOf[1]: schema is {}']);
    expect(problems({ type: 'object', additionalProperties: true }, 'x', false)).toEqual(['x: object without properties', 'x: open additionalProperties']);
  });

  it('shows the defaults the handlers use, and D, W, M among the resolutions candles accept', () => {
    const paths = doc.paths as Record<string, Record<string, Op>>;
    const param = (path: string, name: string) => paths[path]!.get!.parameters.find((p) => p.name === name)!.schema;
    expect(param('/v1/token/{address}/trades', 'limit').default).toBe('100');
    expect(param('/v1/token/{address}/top-traders', 'window').default).toBe('24h');
    expect(param('/v1/token/{address}/top-traders', 'sort').default).toBe('volume');
    expect(param('/v1/market/trending', 'limit').default).toBe('20');
    expect(param('/v1/events', 'limit').default).toBe('100');
    expect(param('/udf/search', 'limit').default).toBe('30');
    expect(param('/v1/token/{address}/candles', 'resolution').enum).toEqual(expect.arrayContaining(['1S', '60', '1D', '1W', '1M', 'D', 'W', 'M']));
  });
});

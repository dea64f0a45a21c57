/**
 * POST /v1/ingest limits (docs/api.md, Ingest limits): at most 100,000 records, counted while
 * parsing. How a large batch is written on SQLite: test/v1/ingest-slices.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aToken } from '../helpers/builders.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const post = (app: TestApp, secret: string, type: string, body: string) =>
  app.http.post('/v1/ingest').set('x-api-key', secret).set('Content-Type', type).send(body);

describe('POST /v1/ingest record cap', () => {
  it.each([
    ['NDJSON of 3.3 million {} lines', 'application/x-ndjson', () => '{}\n'.repeat(3_300_000)],
    ['NDJSON of 100,001 records', 'application/x-ndjson', () => '{}\n\n'.repeat(100_001)],
    ['a JSON array of 3 million {}', 'application/json', () => '[' + '{},'.repeat(3_000_000) + '{}]'],
  ])(
    'refuses %s as 400 invalid_body naming the cap, writing nothing',
    async (_name, type, body) => {
      const app = (t = makeTestApp());
      const { secret } = app.makeKey({ scopes: ['ingest'] });
      const res = await post(app, secret, type, body());
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_body');
      expect(res.body.error.message).toBe('a batch holds at most 100,000 records; split it');
      expect(await app.services.repos.stats.tokens()).toBe(0);
    },
    60_000,
  );

  it('still reports the bad lines of a batch under the cap', async () => {
    const app = (t = makeTestApp());
    const { secret } = app.makeKey({ scopes: ['ingest'] });
    const res = await post(app, secret, 'application/x-ndjson', `${JSON.stringify(aToken())}\n{oops\n{}\n`);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([
      { line: 2, error: 'not valid JSON' },
      { line: 3, error: expect.any(String) },
    ]);
  });
});

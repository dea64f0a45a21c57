/**
 * What the docs give a new operator or partner to copy, run as they would run it: the sample
 * data file of README, Feed your own data (it ingests whole, into what the README says it holds,
 * and a second send is all duplicates), and the webhook verification snippets of docs/api.md,
 * Verifying a webhook, in Node and in Python, against the signature the service sends.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { signatureHeader } from '../../src/services/webhooks.js';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';

const api = readFileSync('docs/api.md', 'utf8');
const sample = readFileSync('docs/examples/sample.ndjson', 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'docs-examples-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** The fenced block of `lang` that follows `heading` in docs/api.md. */
function snippet(heading: string, lang: string): string {
  const from = api.indexOf(heading);
  expect(from, heading).toBeGreaterThan(-1);
  const open = api.indexOf('```' + lang + '\n', from);
  return api.slice(open + lang.length + 4, api.indexOf('\n```', open));
}

describe('README, Feed your own data: docs/examples/sample.ndjson', () => {
  it('ingests whole: one token, two markets, 24 trades and 5 holders; sent again, every trade is a duplicate', async () => {
    t = makeTestApp();
    const { secret } = t.makeKey({ scopes: ['ingest'] });
    const post = () => t!.http.post('/v1/ingest').set('x-api-key', secret).set('Content-Type', 'application/x-ndjson').send(sample);
    const first = await post();
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ accepted: 32, duplicates: 0 });
    const kinds = sample
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { type: string }).type);
    expect(kinds.filter((k) => k === 'token')).toHaveLength(1);
    expect(kinds.filter((k) => k === 'market')).toHaveLength(2);
    expect(kinds.filter((k) => k === 'trade')).toHaveLength(24);
    expect(kinds.filter((k) => k === 'holder')).toHaveLength(5);
    expect((await post()).body).toEqual({ accepted: 8, duplicates: 24 });
    const search = await t.http.get('/v1/search?q=MAPLE');
    expect(search.body.results.map((r: { address: string; symbol: string }) => [r.symbol, r.address])).toEqual([
      ['MAPLE', 'aPe2vFz2yRQ5ULN7eZuA7JPg1rAqa6t4QHpcnv4tRBex'],
    ]);
  });
});

describe('docs/api.md, Verifying a webhook', () => {
  const secret = 'whsec_' + 'Zk3_-q'.repeat(7);
  const body = JSON.stringify({ id: 'evt_1', type: 'trades', token: 'x', createdAt: 1, data: { trades: [{ note: 'é ✓' }] } });
  const now = Math.floor(Date.now() / 1000);
  const cases = [
    { name: 'a fresh delivery', header: signatureHeader(secret, now, body), key: secret, body, ok: true },
    { name: 'a delivery 10 minutes old (a replay)', header: signatureHeader(secret, now - 600, body), key: secret, body, ok: false },
    { name: 'a changed body', header: signatureHeader(secret, now, body), key: secret, body: body + ' ', ok: false },
    { name: 'the secret without its whsec_ prefix', header: signatureHeader(secret, now, body), key: secret.slice('whsec_'.length), body, ok: false },
  ];

  it('the Node snippet accepts what the service signs, and refuses a replay, a changed body and a key without its prefix', async () => {
    const file = join(dir, 'verify.mjs');
    writeFileSync(file, snippet('**Verifying a webhook.**', 'js'));
    const { verifySignature } = (await import(pathToFileURL(file).href)) as { verifySignature(s: string, h: string, b: string): boolean };
    expect(cases.map((c) => [c.name, verifySignature(c.key, c.header, c.body)])).toEqual(cases.map((c) => [c.name, c.ok]));
  });

  it('the Python snippet does the same', () => {
    writeFileSync(join(dir, 'verify.py'), snippet('**Verifying a webhook.**', 'python'));
    const run = (c: (typeof cases)[number]) =>
      execFileSync(
        'python3',
        [
          '-c',
          'import sys; sys.path.insert(0, sys.argv[1]); from verify import verify_signature; print(verify_signature(sys.argv[2], sys.argv[3], sys.stdin.buffer.read()))',
          dir,
          c.key,
          c.header,
        ],
        { input: Buffer.from(c.body, 'utf8') },
      )
        .toString()
        .trim();
    expect(cases.map((c) => [c.name, run(c)])).toEqual(cases.map((c) => [c.name, c.ok ? 'True' : 'False']));
  });
});

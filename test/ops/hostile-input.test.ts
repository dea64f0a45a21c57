/**
 * Hostile input over every route the app serves (enumerated from the router and the route
 * specs, so new routes are covered as they land): malformed and repeated query parameters, odd
 * numbers (1e3, 0x10, -0, 9007199254740993), unicode and NUL bytes, SQL-looking strings, forged
 * cursors, garbage keys and headers, garbage bodies. Every answer is a success or a 4xx in the
 * contract's envelope: never a 5xx, never a hang; and GET requests leave the store unchanged.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { intRange as schemaIntRange } from '../../src/http/validate.js';
import { storeChecksum } from './support.js';
import { ask, expectNoViolations, hostileWorld, rawExchange, violation, type Route, type World } from './hostile-support.js';

let w: World;
beforeAll(async () => {
  w = await hostileWorld();
}, 60_000);
afterAll(async () => {
  await w?.close();
});

/** Values that have broken parsers somewhere. */
const NASTY = [
  '1e3',
  '0x10',
  '-0',
  '-1',
  '010',
  ' 10',
  '10 ',
  '+5',
  '1.5',
  '1,000',
  '9007199254740993',
  '1'.repeat(400),
  'NaN',
  'Infinity',
  '-Infinity',
  '\u0663',
  '\uff11\uff12',
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  "' OR 1=1 --",
  "'; DROP TABLE trades; --",
  '%',
  '_',
  '%_%',
  '\\',
  '"',
  '<script>alert(1)</script>',
  '../../etc/passwd',
  'null',
  'undefined',
  'true',
  '[]',
  '{}',
  '\u{1F680}'.repeat(40),
  '\uD800',
  '\u202Eevil',
  'x'.repeat(5000),
  `svc_live_${'A'.repeat(40)}`,
  'buy',
  '1D',
  'USD',
  '24h',
  'So11111111111111111111111111111111111111112',
  '0x' + 'f'.repeat(40),
  '0X' + 'F'.repeat(40),
];
/** Raw query text that is not valid percent-encoding (sent as is). */
const RAW = ['%', '%%', '%zz', '%E0%A4', '%C0%AF', '%00', '%ff%fe', '%2', 'a%', '%u0041', '+', '%20', '%0d%0a'];

/** Percent-encodes everything but unreserved characters (lone surrogates become U+FFFD). */
const enc = (s: string): string =>
  [...Buffer.from(s, 'utf8')]
    .map((b) => (/[A-Za-z0-9\-._~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : '%' + b.toString(16).toUpperCase().padStart(2, '0')))
    .join('');

/** Valid values by parameter name, so one bad parameter is checked with the others good. */
function goodValues(): Record<string, string> {
  const now = w.t.clock.seconds();
  return {
    symbol: w.token,
    symbols: w.token,
    addresses: `${w.token},${w.otherToken}`,
    resolution: '60',
    from: String(now - 30 * 86400),
    to: String(now),
    countback: '10',
    limit: '10',
    q: 'HO',
    query: 'HO',
    window: '24h',
    sort: 'volume',
    side: 'buy',
    wallet: w.wallet,
    minLiquidityUsd: '0',
    type: 'crypto',
    exchange: '',
    theme: 'dark',
    currencyCode: 'USD',
    unitId: 'u',
  };
}

/** The names a route's query is known to read: its spec's, and the pages' own. */
const namesOf = (r: Route): string[] =>
  r.queryNames.length > 0 ? r.queryNames : r.path === '/' || r.path === '/embed/chart' ? ['symbol', 'resolution', 'theme'] : [];

/** The range of an integer parameter (from its schema's JSON Schema), or null for other kinds. */
const intRange = (r: Route, name: string): [bigint, bigint] | null => {
  const field = r.spec?.query?.shape[name];
  const range = field ? schemaIntRange(field) : null;
  return range ? [BigInt(range[0]), BigInt(range[1])] : null;
};

/** Whether the contract makes `value` a 400 for an integer parameter of range `range`. */
const badInteger = (range: [bigint, bigint], value: string): boolean =>
  !/^(0|[1-9][0-9]*)$/.test(value) || BigInt(value) < range[0] || BigInt(value) > range[1];

/** A concrete path for a route pattern: a real token for :address, a real key id for :id. */
const fill = (path: string, sub: Record<string, string> = {}): string =>
  path.replace(/:(\w+)/g, (_m, name: string) => sub[name] ?? (name === 'address' ? w.token : name === 'id' ? w.keyId : 'x'));

const keyFor = (r: Route): Record<string, string> => (r.spec?.access === 'key' ? { 'x-api-key': r.path === '/v1/ingest' ? w.ingestKey : w.readKey } : {});

const query = (pairs: [string, string, boolean?][]): string =>
  pairs.length === 0 ? '' : '?' + pairs.map(([k, v, raw]) => `${enc(k)}=${raw ? v : enc(v)}`).join('&');

async function check(found: string[], req: { method: string; path: string; headers?: Record<string, string>; body?: string }) {
  let a;
  try {
    a = await ask(w, req);
  } catch (err) {
    found.push(`${req.method.toUpperCase()} ${req.path.slice(0, 300)}: ${(err as Error).message}`);
    return null;
  }
  const v = violation(req, a);
  if (v) found.push(v);
  return a;
}

const gets = () => w.routes.filter((r) => r.method === 'get');

describe('hostile query strings on every GET route', () => {
  it('answer each bad value of each parameter (others good) with a 4xx envelope or a success, and change nothing', async () => {
    const good = goodValues();
    // Keyed GETs write lastUsedAt at most once a minute: let that happen before the checksum.
    await ask(w, { method: 'get', path: '/v1/me', headers: { 'x-api-key': w.readKey } });
    await ask(w, { method: 'get', path: '/v1/me', headers: { 'x-api-key': w.ingestKey } });
    const before = await storeChecksum(w.t);
    const found: string[] = [];
    let sent = 0;
    for (const r of gets()) {
      const names = namesOf(r);
      for (const name of [...names, 'zzz']) {
        const base = names.filter((n) => n !== name && good[n] !== undefined).map((n): [string, string] => [n, good[n]!]);
        const values: [string, boolean][] = [...NASTY.map((v): [string, boolean] => [v, false]), ...RAW.map((v): [string, boolean] => [v, true])];
        for (const [value, raw] of values) {
          const req = { method: 'get', path: fill(r.path) + query([...base, [name, value, raw]]), headers: keyFor(r) };
          const a = await check(found, req);
          sent++;
          // The contract's numbers: only plain decimal integers; everything else here is a 400.
          const range = intRange(r, name);
          if (a && range && !raw && value !== '' && badInteger(range, value) && a.status !== 400) {
            found.push(`${req.path.slice(0, 200)}: ${JSON.stringify(value.slice(0, 20))} for an integer parameter answered ${a.status}`);
          }
        }
        // A repeated parameter is a 400 naming it.
        if (name !== 'zzz' && good[name] !== undefined) {
          const req = { method: 'get', path: fill(r.path) + query([...base, [name, good[name]!], [name, good[name]!]]), headers: keyFor(r) };
          const a = await check(found, req);
          sent++;
          if (a && r.spec && (a.status !== 400 || JSON.parse(a.text).error?.param !== name)) {
            found.push(`${req.path.slice(0, 200)}: repeated ${name} answered ${a.status} ${a.text.slice(0, 120)}`);
          }
        }
      }
    }
    expect(sent).toBeGreaterThan(1000);
    expectNoViolations(found);
    expect(await storeChecksum(w.t)).toBe(before);
  }, 300_000);

  it('answer bad path parameters (:address, :id) with a 4xx envelope', async () => {
    const bad = [...NASTY.filter((v) => v !== '').map(enc), ...RAW.filter((v) => v !== '%2' && v !== '+'), '..', '.', '%2F', '%2e%2e', 'a'.repeat(3000)];
    const found: string[] = [];
    const before = await storeChecksum(w.t);
    for (const r of w.routes.filter((x) => /:\w+/.test(x.path))) {
      for (const value of bad) {
        const sub = Object.fromEntries([...r.path.matchAll(/:(\w+)/g)].map((m) => [m[1]!, value]));
        await check(found, { method: r.method, path: fill(r.path, sub), headers: keyFor(r) });
      }
    }
    expectNoViolations(found);
    // The DELETE and POST routes above were refused (bad ids and addresses): nothing changed.
    expect(await storeChecksum(w.t)).toBe(before);
  }, 120_000);

  it('fast-check: random query strings, repeats and garbage headers on random GET routes', async () => {
    const good = goodValues();
    const routes = gets();
    await ask(w, { method: 'get', path: '/v1/me', headers: { 'x-api-key': w.readKey } });
    const before = await storeChecksum(w.t);
    const value = fc.oneof(
      fc.constantFrom(...NASTY),
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.string({ unit: 'grapheme', maxLength: 20 }),
      fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map(String),
      fc.double().map(String),
      fc.integer({ min: 0, max: 2_000_000_000 }).map(String),
      fc.constantFrom(...Object.values(good)),
    );
    const headerText = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 60 });
    const headers = fc.record(
      {
        'x-api-key': fc.oneof(
          headerText,
          fc.constant(w.readKey),
          fc.constant(`${w.readKey}, ${w.ingestKey}`),
          headerText.map((s) => `svc_live_${s}`),
        ),
        authorization: fc.oneof(
          headerText,
          headerText.map((s) => `Bearer ${s}`),
          fc.constant(`Bearer ${w.readKey}`),
          fc.constant('Bearer svc_live_'),
        ),
        'x-request-id': headerText,
        'if-none-match': headerText,
        'accept-encoding': fc.constantFrom('gzip', 'x'.repeat(200)),
        'content-type': headerText,
        origin: headerText,
        'x-forwarded-for': headerText,
        cookie: headerText,
        range: fc.constantFrom('bytes=0-1', 'bytes=-5', 'bytes=x'),
      },
      { requiredKeys: [] },
    );
    const found: string[] = [];
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: routes.length - 1 }),
        fc.array(
          fc.tuple(
            fc.oneof(fc.constantFrom('limit', 'cursor', 'symbol', 'resolution', 'from', 'to', 'countback', 'q', 'key', 'window'), fc.string({ maxLength: 8 })),
            value,
          ),
          { maxLength: 6 },
        ),
        fc.boolean(),
        headers,
        fc.constantFrom('get', 'head'),
        async (ri, extra, withGood, hdrs, method) => {
          const r = routes[ri]!;
          const names = namesOf(r);
          const pairs: [string, string][] = withGood ? names.filter((n) => good[n] !== undefined).map((n): [string, string] => [n, good[n]!]) : [];
          for (const [n, v] of extra) pairs.push([n, v]);
          const req = { method, path: fill(r.path) + query(pairs), headers: hdrs as Record<string, string> };
          await check(found, req);
          if (found.length > 0) throw new Error(found.join('\n'));
        },
      ),
      { numRuns: 800, endOnFailure: true },
    );
    expectNoViolations(found);
    expect(await storeChecksum(w.t)).toBe(before);
  }, 300_000);

  /** Strings near a real cursor (a character changed, cut, padded, re-encoded) and random ones. */
  const forgeries = (cursor: string) =>
    fc.oneof(
      fc.tuple(fc.nat(cursor.length - 1), fc.constantFrom(...'ABCDEFabcdef0123456789-_.')).map(([i, c]) => cursor.slice(0, i) + c + cursor.slice(i + 1)),
      fc.nat(cursor.length - 1).map((i) => cursor.slice(0, i)),
      fc.string({ minLength: 1, maxLength: 4 }).map((s) => cursor + s),
      fc.constant(cursor + '='),
      fc.constant(cursor + '=='),
      fc.constant(cursor.replace(/-/g, '+').replace(/_/g, '/')),
      fc.base64String({ minLength: 4, maxLength: 80 }),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 80 }),
    );

  async function refusesForgeries(found: string[], cursor: string, at: (c: string) => string, headers: Record<string, string> = {}) {
    await fc.assert(
      fc.asyncProperty(forgeries(cursor), async (c) => {
        // The exact cursor is valid, and an empty value counts as absent (the first page).
        if (c === cursor || c === '') return;
        const a = await check(found, { method: 'get', path: at(enc(c)), headers });
        if (a && (a.status !== 400 || JSON.parse(a.text).error?.code !== 'invalid_cursor'))
          found.push(`${at(JSON.stringify(c))}: ${a.status} ${a.text.slice(0, 100)}`);
        if (found.length > 0) throw new Error(found.join('\n'));
      }),
      { numRuns: 300, endOnFailure: true },
    );
  }

  it('refuses every forged trades cursor with 400 invalid_cursor', async () => {
    const page = await ask(w, { method: 'get', path: `/v1/token/${w.token}/trades?limit=2` });
    const cursor = JSON.parse(page.text).nextCursor as string;
    expect(typeof cursor).toBe('string');
    const ok = await ask(w, { method: 'get', path: `/v1/token/${w.token}/trades?limit=2&cursor=${cursor}` });
    expect(ok.status).toBe(200);
    const found: string[] = [];
    await refusesForgeries(found, cursor, (c) => `/v1/token/${w.token}/trades?limit=2&cursor=${c}`);
    // Replayed on another token or another filter.
    for (const path of [
      `/v1/token/${w.otherToken}/trades?cursor=${cursor}`,
      `/v1/token/${w.token}/trades?side=buy&cursor=${cursor}`,
      `/v1/token/${w.token}/trades?wallet=${w.wallet}&cursor=${cursor}`,
    ]) {
      const a = await check(found, { method: 'get', path });
      if (a && JSON.parse(a.text).error?.code !== 'invalid_cursor') found.push(`${path}: ${a.status}`);
    }
    expectNoViolations(found);
  }, 120_000);

  it("refuses every forged events cursor with 400 invalid_cursor, and another tenant's", async () => {
    const headers = { 'x-api-key': w.readKey };
    const page = await ask(w, { method: 'get', path: '/v1/events?limit=1', headers });
    const cursor = JSON.parse(page.text).nextCursor as string;
    expect(typeof cursor).toBe('string');
    expect((await ask(w, { method: 'get', path: `/v1/events?cursor=${cursor}`, headers })).status).toBe(200);
    const found: string[] = [];
    await refusesForgeries(found, cursor, (c) => `/v1/events?cursor=${c}`, headers);
    const stranger = w.t.makeKey({ plan: 'enterprise' });
    const replay = await check(found, { method: 'get', path: `/v1/events?cursor=${cursor}`, headers: { 'x-api-key': stranger.secret } });
    if (replay && JSON.parse(replay.text).error?.code !== 'invalid_cursor') found.push(`another tenant's cursor: ${replay.status}`);
    expectNoViolations(found);
  }, 120_000);
});

describe('odd headers', () => {
  it('answer every Accept-Encoding, even one that accepts no coding at all, on every GET route', async () => {
    const good = goodValues();
    const found: string[] = [];
    // identity;q=0 and *;q=0 leave no acceptable coding: an answer must still come, not a 500.
    const codings = ['identity;q=0', '*;q=0', '*;q=-1', 'gzip;q=0, identity;q=0', 'br;q=abc, *;q=-1', 'gzip;q=1.5', ',,,', 'x'.repeat(500)];
    for (const r of gets()) {
      const names = namesOf(r);
      const path = fill(r.path) + query(names.filter((n) => good[n] !== undefined).map((n): [string, string] => [n, good[n]!]));
      for (const coding of codings) await check(found, { method: 'get', path, headers: { ...keyFor(r), 'accept-encoding': coding } });
    }
    expectNoViolations(found);
  }, 120_000);

  it('answer header values with bytes beyond ASCII (sent on a raw socket) like any other garbage', async () => {
    const found: string[] = [];
    const values: [string, Buffer][] = [
      ['x-api-key', Buffer.from('svc_live_\u00e9\u00e8\u00ff', 'latin1')],
      ['x-api-key', Buffer.from('svc_live_\u{1F680}', 'utf8')],
      ['authorization', Buffer.from('Bearer svc_live_\u00ff\u00fe', 'latin1')],
      ['x-request-id', Buffer.from('\u00e9t\u00e9', 'latin1')],
      ['cookie', Buffer.from('sid=\u00ff; csrf=\u0080', 'latin1')],
      ['x-forwarded-for', Buffer.from('\u00ff.1.1.1', 'latin1')],
    ];
    for (const [name, value] of values) {
      for (const path of ['/v1/me', '/udf/time', '/dashboard/api/session', '/v1/search?q=x']) {
        const head = Buffer.concat([
          Buffer.from(`GET ${path} HTTP/1.1\r\nHost: x\r\nAccept-Encoding: identity\r\nConnection: close\r\n${name}: `),
          value,
          Buffer.from('\r\n\r\n'),
        ]);
        const a = await rawExchange(w, head);
        const v = violation({ method: 'get', path }, a);
        if (v) found.push(`${name}: ${v}`);
      }
    }
    expectNoViolations(found);
  }, 60_000);
});

describe('hostile bodies and methods on every route', () => {
  it('answer garbage bodies, content types and methods with a 4xx envelope or a success', async () => {
    const found: string[] = [];
    const bodies: [string | undefined, string][] = [
      ['application/json', '{'],
      ['application/json', 'null'],
      ['application/json', '[]'],
      ['application/json', '"x"'],
      ['application/json', '1e999'],
      ['application/json', '{"name":"\u0000","graceSeconds":1e3,"address":"\'; DROP TABLE tokens;--","webhookUrl":"http://127.0.0.1:1/"}'],
      [
        'application/json',
        JSON.stringify({ name: 'x'.repeat(10_000), graceSeconds: Number.MAX_SAFE_INTEGER + 2, address: w.token, webhookUrl: 'file:///etc/passwd' }),
      ],
      ['application/json', '{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}}}'],
      ['application/json; charset=latin1', '{}'],
      ['application/x-ndjson', '{"type":"trade"}\n\u0000\n{'],
      ['application/x-ndjson', '\n\n\n'],
      ['text/plain', 'hello'],
      ['multipart/form-data; boundary=x', '--x\r\n\r\n--x--'],
      [undefined, '{"a":1}'],
      ['application/json', '\uFEFF{}'],
      ['application/x-www-form-urlencoded', 'a=1&a=2'],
      ['application/json', '{"a":'.repeat(5000)],
    ];
    for (const r of w.routes.filter((x) => x.method !== 'get')) {
      for (const [type, body] of bodies) {
        for (const headers of [keyFor(r), { 'x-api-key': `svc_live_${'z'.repeat(40)}` }, {}]) {
          await check(found, { method: r.method, path: fill(r.path), headers: { ...headers, ...(type ? { 'content-type': type } : {}) }, body });
        }
      }
    }
    // Methods a route does not have: 405 with Allow (or 404), in the envelope.
    for (const r of w.routes) {
      for (const method of ['put', 'patch', 'delete', 'post', 'options']) {
        if (w.routes.some((x) => x.path === r.path && x.method === method)) continue;
        await check(found, { method, path: fill(r.path) });
      }
    }
    // Odd request targets.
    for (const path of [
      '/v1/token//overview',
      '/v1//search',
      '//udf/time',
      '/udf/time/',
      '/UDF/TIME',
      '/v1/token/%00/overview',
      '/%',
      '/v1/search?q=a#frag',
      '/v1/search?&&&=&=x&q',
      '/v1/search?q[]=a&q[x]=b',
      `/v1/search?${'a=1&'.repeat(2000)}q=x`,
    ]) {
      await check(found, { method: 'get', path });
    }
    expectNoViolations(found);
  }, 300_000);

  it('fast-check: random JSON bodies on every POST and DELETE route, with a valid key', async () => {
    const routes = w.routes.filter((x) => x.method !== 'get');
    const found: string[] = [];
    const json = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.dictionary(
        fc.constantFrom('name', 'graceSeconds', 'address', 'webhookUrl', 'email', 'password', 'type', 'token', 'signature', 'x'),
        fc.oneof(fc.jsonValue({ maxDepth: 1 }), fc.constantFrom(...NASTY), fc.constant(w.token), fc.double(), fc.integer()),
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: routes.length - 1 }),
        json,
        fc.constantFrom('application/json', 'application/x-ndjson'),
        async (ri, body, type) => {
          const r = routes[ri]!;
          await check(found, { method: r.method, path: fill(r.path), headers: { ...keyFor(r), 'content-type': type }, body: JSON.stringify(body) });
          if (found.length > 0) throw new Error(found.join('\n'));
        },
      ),
      { numRuns: 400, endOnFailure: true },
    );
    expectNoViolations(found);
  }, 300_000);
});

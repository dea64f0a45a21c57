/**
 * A TypeScript client generated from /openapi.json with openapi-typescript has a precise type for
 * every 2xx body: a program that calls every route through the generated `paths` types and reads
 * their fields into variables of the contract's types compiles (TypeScript compiler API, strict),
 * a program reading a field as the wrong type does not, no 2xx body is `unknown` or `any`, and the
 * program, run against a live server, gets the answers it was typed for.
 */
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeModulesDir } from '../../src/paths.js';
import { aTrade, ndjson } from '../helpers/builders.js';
import { CLIENT_PROGRAM } from './openapi-client-program.js';
import { contractWorld, type ContractWorld } from './openapi-support.js';

type Doc = { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>> };

let w: ContractWorld;
let server: Server;
let base: string;
let doc: Doc;
let dir: string;
let generated: string;

beforeAll(async () => {
  w = await contractWorld();
  server = w.t.app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  doc = (await (await fetch(`${base}/openapi.json`)).json()) as Doc;
  dir = mkdtempSync(join(tmpdir(), 'typed-client-'));
  generated = astToString(await openapiTS(doc as never));
  writeFileSync(join(dir, 'api.d.ts'), generated);
}, 60_000);
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  w?.t.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Type errors of `files` (in the temp directory, next to api.d.ts), one line each. */
function typeErrors(files: Record<string, string>): string[] {
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const program = ts.createProgram(
    Object.keys(files).map((name) => join(dir, name)),
    {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
      types: ['node'],
      typeRoots: [join(nodeModulesDir, '@types')],
      skipLibCheck: true,
      noUncheckedIndexedAccess: true,
    },
  );
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file && d.start !== undefined ? `${d.file.fileName.slice(dir.length + 1)}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1} ` : '';
    return where + ts.flattenDiagnosticMessageText(d.messageText, '\n');
  });
}

/** Every (path, method, 2xx status, media type) with a body in the document. */
function successBodies(): { path: string; method: string; status: string; type: string }[] {
  const out: { path: string; method: string; status: string; type: string }[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      for (const [status, res] of Object.entries(op.responses)) {
        if (!/^2/.test(status)) continue;
        for (const type of Object.keys(res.content ?? {})) out.push({ path, method, status, type });
      }
    }
  }
  return out;
}

describe('a client generated with openapi-typescript', () => {
  it('types every 2xx body of every operation: none is unknown or any', () => {
    const bodies = successBodies();
    const operations = Object.values(doc.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);
    expect(new Set(bodies.map((b) => `${b.method} ${b.path}`)).size).toBe(operations);
    // One compile-time assertion per body: `unknown extends T` holds only for unknown and any.
    const checks = bodies.map(
      (b, i) =>
        `type B${i} = paths[${JSON.stringify(b.path)}][${JSON.stringify(b.method)}]['responses'][${b.status}]['content'][${JSON.stringify(b.type)}];\n` +
        `const c${i}: Precise<B${i}> = true;`,
    );
    const file = `import type { paths } from './api';\ntype Precise<T> = unknown extends T ? false : true;\n${checks.join('\n')}\nexport {};\n`;
    expect(typeErrors({ 'precise.ts': file })).toEqual([]);
    // And the generated text has no open body: no unknown content, no free-form objects.
    expect(generated).not.toMatch(/"(application\/json|text\/plain)"\??: unknown/);
    expect(generated).not.toMatch(/\[key: string\]: unknown/);
    expect(generated).not.toMatch(/: any\b/);
  }, 60_000);

  it('compiles a program that calls every route and reads each answer into variables of the contract types', () => {
    for (const path of Object.keys(doc.paths)) expect(CLIENT_PROGRAM, `the program calls ${path}`).toContain(`'${path}'`);
    expect(typeErrors({ 'program.mts': CLIENT_PROGRAM })).toEqual([]);
  }, 60_000);

  it('refuses a program that reads a field as another type, or a field that does not exist', () => {
    const wrong = `import type { paths } from './api';
type Overview = paths['/v1/token/{address}/overview']['get']['responses'][200]['content']['application/json'];
declare const o: Overview;
const price: string = o.priceUsd;
const missing: number = o.nope;
type History = paths['/udf/history']['get']['responses'][200]['content']['application/json'];
declare const h: History;
const bars: number[] = h.t;
export { price, missing, bars };
`;
    const errors = typeErrors({ 'wrong.ts': wrong });
    expect(
      errors.some((e) => /wrong\.ts:4 Type 'number \| null' is not assignable to type 'string'/.test(e)),
      errors.join('\n'),
    ).toBe(true);
    expect(
      errors.some((e) => /wrong\.ts:5 .*'nope' does not exist/.test(e)),
      errors.join('\n'),
    ).toBe(true);
    // h.t exists only on the s: "ok" branch: the union must be narrowed first.
    expect(
      errors.some((e) => /wrong\.ts:8 /.test(e)),
      errors.join('\n'),
    ).toBe(true);
  }, 60_000);

  it('runs the program against a live server: each call answers what its type says', async () => {
    const tsx = join(nodeModulesDir, '.bin', 'tsx');
    writeFileSync(join(dir, 'program.mts'), CLIENT_PROGRAM);
    const fresh = aTrade(w.traded, { blockTime: w.t.clock.seconds() - 30, priceUsd: 4 });
    const env = { ...process.env, BASE: base, KEY: w.secret, TOKEN: w.traded, NOW: String(w.t.clock.seconds()), NDJSON: ndjson([fresh]) };
    const { stdout } = await promisify(execFile)(tsx, [join(dir, 'program.mts')], { env, cwd: dir, timeout: 60_000 });
    const out = JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown[]>;
    expect(out.overview).toEqual(['TYPED', 2.95, 23]);
    expect(out.trades).toEqual([2, 'sell', true]);
    expect(out.candles?.[0]).toBe('60');
    expect(out.holders).toEqual([2, 250 * 2.95, 0.025]);
    expect(out.markets).toEqual(['SOL']);
    expect(out.search).toEqual(['symbol']);
    expect(out.prices).toEqual([2.95]);
    expect(out.chains).toEqual(['solana', true, expect.any(Number), null, null]);
    expect(out.keys).toEqual(['active', true, true, true]);
    expect(out.subscriptions).toEqual(['string', 'http://127.0.0.1:9/hook', 1, 1, true, true]);
    expect(out.udf).toEqual([13, true, 'raydium:TYPED', true, true, 4, 0]);
  }, 90_000);
});

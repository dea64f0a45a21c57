/**
 * Compiles the test tokens (contracts/Tokens.sol) with solcjs, the compiler bundled in the npm
 * package `solc`: offline, the same bytes on every machine. Loading solcjs takes seconds, so the
 * output is kept in the system's temporary folder under the hash of the source and compiler, and
 * every later process (each test file, the devnet) reads it from there.
 */
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Abi, Hex } from 'viem';

export type Compiled = { abi: Abi; bytecode: Hex };
export type TokenContracts = { TestToken: Compiled; Bytes32Token: Compiled; NoMetadataToken: Compiled; NoDecimalsToken: Compiled };

type SolcOutput = {
  errors?: { severity: string; formattedMessage: string }[];
  contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
};

let compiled: TokenContracts | null = null;

/** The four token contracts, compiled on the first call of the first process (or read from its cache). */
export function tokenContracts(): TokenContracts {
  if (compiled !== null) return compiled;
  const require = createRequire(import.meta.url);
  const source = readFileSync(new URL('./contracts/Tokens.sol', import.meta.url), 'utf8');
  const solcVersion = (require('solc/package.json') as { version: string }).version;
  const key = createHash('sha256').update(`${solcVersion}\n${source}`).digest('hex').slice(0, 16);
  const cache = join(tmpdir(), `devnet-tokens-${key}.json`);
  try {
    compiled = JSON.parse(readFileSync(cache, 'utf8')) as TokenContracts;
    return compiled;
  } catch {
    // Not compiled yet on this machine.
  }
  compiled = compile(require, source);
  // Written aside and renamed, so a process reading beside it never sees half a file.
  const aside = `${cache}.${process.pid}`;
  writeFileSync(aside, JSON.stringify(compiled));
  renameSync(aside, cache);
  return compiled;
}

function compile(require: NodeJS.Require, source: string): TokenContracts {
  const solc = require('solc') as { compile(input: string): string };
  const input = {
    language: 'Solidity',
    sources: { 'Tokens.sol': { content: source } },
    settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: 'paris', outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(`Tokens.sol does not compile: ${errors.map((e) => e.formattedMessage).join('\n')}`);
  const pick = (name: string): Compiled => {
    const c = output.contracts['Tokens.sol']?.[name];
    if (c === undefined) throw new Error(`Tokens.sol has no contract ${name}`);
    return { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
  };
  return {
    TestToken: pick('TestToken'),
    Bytes32Token: pick('Bytes32Token'),
    NoMetadataToken: pick('NoMetadataToken'),
    NoDecimalsToken: pick('NoDecimalsToken'),
  };
}

/**
 * Starts a local EVM node: the anvil binary shipped in the npm package @foundry-rs/anvil (its
 * platform package holds the native binary), on a loopback port the kernel picks, so tests and the
 * devnet run side by side. Nothing is downloaded: the binary is installed by npm.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export type AnvilOptions = {
  /** Seconds between blocks (interval mining); with neither this nor `noMining`, a block per transaction. */
  blockTime?: number;
  /** No block until evm_mine / anvil_mine is called (manual mining: many transactions per block). */
  noMining?: boolean;
  /** Dev accounts (unlocked, 10 000 ETH each unless `balance`). */
  accounts?: number;
  balance?: number;
  /** Genesis timestamp (unix seconds); anvil's own clock otherwise. */
  timestamp?: number;
  chainId?: number;
  /** Block gas limit (anvil's default is 30 000 000); the benchmark packs many swaps per block. */
  gasLimit?: number;
};

export type Anvil = {
  /** http://127.0.0.1:PORT */
  rpcUrl: string;
  /** ws://127.0.0.1:PORT (anvil serves both on one port) */
  wsUrl: string;
  port: number;
  pid: number;
  /** SIGTERM, and SIGKILL when it has not exited within 2 s. */
  stop(): Promise<void>;
};

/** The native binary of the installed @foundry-rs/anvil (its platform package), else its node wrapper. */
export function anvilBinary(): string {
  const require = createRequire(import.meta.url);
  try {
    const pkg = require.resolve(`@foundry-rs/anvil-${process.platform}-${process.arch === 'x64' ? 'amd64' : process.arch}/package.json`);
    const bin = join(dirname(pkg), 'bin', 'anvil');
    if (existsSync(bin)) return bin;
  } catch {
    // No platform package under that name: the wrapper finds the binary itself.
  }
  return join(dirname(require.resolve('@foundry-rs/anvil/package.json')), 'bin.mjs');
}

/** Starts anvil on 127.0.0.1 and resolves once it listens (it prints the port it bound). */
export function startAnvil(opts: AnvilOptions = {}): Promise<Anvil> {
  const args = ['--host', '127.0.0.1', '--port', '0', '--accounts', String(opts.accounts ?? 10), '--chain-id', String(opts.chainId ?? 31337)];
  if (opts.balance !== undefined) args.push('--balance', String(opts.balance));
  if (opts.blockTime !== undefined) args.push('--block-time', String(opts.blockTime));
  if (opts.noMining === true) args.push('--no-mining');
  if (opts.timestamp !== undefined) args.push('--timestamp', String(opts.timestamp));
  if (opts.gasLimit !== undefined) args.push('--gas-limit', String(opts.gasLimit));
  const bin = anvilBinary();
  const child = bin.endsWith('.mjs')
    ? spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (chunk: Buffer): void => {
      out += chunk.toString();
      const m = /Listening on 127\.0\.0\.1:(\d+)/.exec(out);
      if (m === null) return;
      child.stdout?.off('data', onData);
      // Keep draining: a full pipe would block the node.
      child.stdout?.resume();
      const port = Number(m[1]);
      resolve({ rpcUrl: `http://127.0.0.1:${port}`, wsUrl: `ws://127.0.0.1:${port}`, port, pid: child.pid ?? -1, stop: () => stopChild(child) });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (c: Buffer) => void (out += c.toString()));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`anvil exited (${code}) before listening: ${out.slice(-500)}`)));
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

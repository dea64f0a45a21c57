/**
 * A small client of a dev node (anvil) for deploying and trading: transactions are sent from the
 * node's unlocked dev accounts (`eth_sendTransaction`, no signing here) with a fixed gas limit,
 * so with manual mining many can wait in the pool and land in one block.
 */
import {
  createPublicClient,
  encodeDeployData,
  encodeFunctionData,
  http,
  type Abi,
  type Address,
  type Hex,
  type PublicClient,
  type TransactionReceipt,
} from 'viem';
import type { Compiled } from './compile.js';

export type SendOptions = { value?: bigint; gas?: bigint; /** false: return the hash at once (manual mining) */ wait?: boolean };

export type DevChain = {
  rpcUrl: string;
  client: PublicClient;
  /** The node's dev accounts: [0] deploys and provides liquidity, the rest trade. */
  accounts: Address[];
  deploy(from: Address, contract: Compiled, args?: readonly unknown[]): Promise<Address>;
  send(from: Address, to: Address, abi: Abi, functionName: string, args?: readonly unknown[], opts?: SendOptions): Promise<Hex>;
  read<T>(to: Address, abi: Abi, functionName: string, args?: readonly unknown[], blockNumber?: bigint): Promise<T>;
  /** Mines `blocks` blocks now (anvil_mine), whatever the node's mining mode. */
  mine(blocks?: number): Promise<void>;
  /** Turns mining at each transaction on or off (evm_setAutomine). */
  automine(on: boolean): Promise<void>;
  /** Mines a block every `seconds` (anvil's evm_setIntervalMining; 0 turns it off). */
  intervalMining(seconds: number): Promise<void>;
  /** Waits for a sent transaction's receipt and throws when it reverted. */
  receipt(hash: Hex, what?: string): Promise<TransactionReceipt>;
  blockNumber(): Promise<number>;
  snapshot(): Promise<Hex>;
  revert(id: Hex): Promise<void>;
  /** The transaction `send` would send, unsent: for anvil_reorg's replacement blocks. */
  request(from: Address, to: Address, abi: Abi, functionName: string, args?: readonly unknown[], opts?: SendOptions): TxRequest;
  /**
   * Replaces the newest `depth` blocks by as many new ones (anvil_reorg), `txs` in them: each with
   * the offset of its block among the new ones (0 the oldest). The height stays the same.
   */
  reorg(depth: number, txs?: readonly { tx: TxRequest; block: number }[]): Promise<void>;
};

/** A transaction as eth_sendTransaction takes it (hex quantities). */
export type TxRequest = Record<string, string>;

const DEPLOY_GAS = 15_000_000n;
const CALL_GAS = 1_500_000n;

export async function connectDevChain(rpcUrl: string): Promise<DevChain> {
  const client = createPublicClient({ transport: http(rpcUrl, { retryCount: 0 }), pollingInterval: 50 });
  const accounts = (await client.request({ method: 'eth_accounts' as 'eth_chainId' })) as unknown as Address[];
  const raw = (method: string, params: unknown[]): Promise<unknown> => client.request({ method: method as 'eth_chainId', params: params as never });
  const receipt = async (hash: Hex, what = 'transaction'): Promise<TransactionReceipt> => {
    const r = await client.waitForTransactionReceipt({ hash, pollingInterval: 20, timeout: 60_000 });
    if (r.status !== 'success') throw new Error(`${what} reverted (${hash})`);
    return r;
  };
  const sendRaw = (tx: Record<string, unknown>): Promise<Hex> => raw('eth_sendTransaction', [tx]) as Promise<Hex>;
  const request = (from: Address, to: Address, abi: Abi, functionName: string, args: readonly unknown[] = [], opts: SendOptions = {}): TxRequest => {
    const tx: TxRequest = { from, to, data: encodeFunctionData({ abi, functionName, args }), gas: `0x${(opts.gas ?? CALL_GAS).toString(16)}` };
    if (opts.value !== undefined) tx.value = `0x${opts.value.toString(16)}`;
    return tx;
  };
  return {
    rpcUrl,
    client,
    accounts,
    async deploy(from, contract, args = []) {
      const data = encodeDeployData({ abi: contract.abi, bytecode: contract.bytecode, args });
      const hash = await sendRaw({ from, data, gas: `0x${DEPLOY_GAS.toString(16)}` });
      const r = await receipt(hash, 'deployment');
      if (r.contractAddress == null) throw new Error(`deployment ${hash} made no contract`);
      return r.contractAddress;
    },
    async send(from, to, abi, functionName, args = [], opts = {}) {
      const hash = await sendRaw(request(from, to, abi, functionName, args, opts));
      if (opts.wait !== false) await receipt(hash, functionName);
      return hash;
    },
    read: <T>(to: Address, abi: Abi, functionName: string, args: readonly unknown[] = [], blockNumber?: bigint) =>
      client.readContract({ address: to, abi, functionName, args, blockNumber }) as Promise<T>,
    async mine(blocks = 1) {
      await raw('anvil_mine', [`0x${blocks.toString(16)}`]);
    },
    async automine(on) {
      await raw('evm_setAutomine', [on]);
    },
    async intervalMining(seconds) {
      await raw('evm_setIntervalMining', [seconds]);
    },
    receipt,
    blockNumber: async () => Number(await client.getBlockNumber({ cacheTime: 0 })),
    snapshot: () => raw('evm_snapshot', []) as Promise<Hex>,
    async revert(id) {
      const ok = await raw('evm_revert', [id]);
      if (ok !== true) throw new Error(`evm_revert ${id} refused`);
    },
    request,
    async reorg(depth, txs = []) {
      await raw('anvil_reorg', [depth, txs.map((t) => [t.tx, t.block])]);
    },
  };
}

/**
 * The indexer file (docs/indexer.md, The file): defaults filled, and every bad field refused with
 * one line naming it.
 */
import { describe, expect, it } from 'vitest';
import { IndexerConfigError, parseIndexerConfig } from '../../src/indexer/evm/config.js';

const USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const WETH = '0x4200000000000000000000000000000000000006';
const POOL = '0xd0b53D9277642d899DF5C87A3966A349A798F224';
const FACTORY = '0x8909Dc15e40173Ff4699343b6eB8132c65e18eC6';

const minimal = () => ({
  chain: 'base',
  rpcUrl: 'http://127.0.0.1:8545',
  dexes: [{ name: 'uniswap-v2', protocol: 'uniswap-v2', factory: FACTORY }],
  quotes: [{ address: USDC, usd: 1 }],
});

function refusal(value: unknown, chains: readonly string[] = ['base']): string {
  try {
    parseIndexerConfig(value, chains);
  } catch (err) {
    expect(err).toBeInstanceOf(IndexerConfigError);
    expect((err as Error).message).not.toContain('\n');
    return (err as Error).message;
  }
  throw new Error('accepted');
}

describe('parseIndexerConfig', () => {
  it('fills the defaults and lower-cases addresses', () => {
    expect(parseIndexerConfig({ chains: [minimal()] }, ['base'])).toEqual({
      chains: [
        {
          chain: 'base',
          rpcUrl: 'http://127.0.0.1:8545',
          wsUrl: null,
          pollMs: 1000,
          startBlock: 0,
          confirmations: 0,
          reorgDepth: 64,
          maxBlockRange: 2000,
          requestsPerSecond: 25,
          dexes: [{ name: 'uniswap-v2', protocol: 'uniswap-v2', factory: FACTORY.toLowerCase() }],
          quotes: [{ address: USDC.toLowerCase(), usd: 1 }],
          holders: true,
        },
      ],
    });
  });

  it('keeps every field given, usdPool quotes included', () => {
    const c = parseIndexerConfig(
      {
        chains: [
          {
            ...minimal(),
            wsUrl: 'ws://127.0.0.1:8546',
            pollMs: 250,
            startBlock: 123,
            confirmations: 2,
            reorgDepth: 10,
            maxBlockRange: 500,
            requestsPerSecond: 2.5,
            holders: false,
            quotes: [
              { address: USDC, usd: 1 },
              { address: WETH, usdPool: POOL },
            ],
          },
        ],
      },
      ['solana', 'base'],
    ).chains[0]!;
    expect(c).toMatchObject({
      wsUrl: 'ws://127.0.0.1:8546',
      pollMs: 250,
      startBlock: 123,
      confirmations: 2,
      reorgDepth: 10,
      maxBlockRange: 500,
      requestsPerSecond: 2.5,
      holders: false,
    });
    expect(c.quotes).toEqual([
      { address: USDC.toLowerCase(), usd: 1 },
      { address: WETH, usdPool: POOL.toLowerCase() },
    ]);
  });

  it.each([
    [{}, 'chains is required'],
    [{ chains: [] }, 'chains must name at least one chain'],
    [{ chains: 'x' }, 'chains must be an array'],
    [{ chains: [minimal()], extra: 1 }, 'extra is not a field of the indexer file'],
    [{ chains: [{ ...minimal(), rpcUrl: undefined }] }, 'chains[0].rpcUrl is required'],
    [{ chains: [{ ...minimal(), rpcUrl: 'ftp://x' }] }, 'chains[0].rpcUrl must be a URL like http://127.0.0.1:8545'],
    [{ chains: [{ ...minimal(), wsUrl: 'http://x' }] }, 'chains[0].wsUrl must be a URL like ws://127.0.0.1:8545'],
    [{ chains: [{ ...minimal(), pollMs: 1.5 }] }, 'chains[0].pollMs must be a whole number'],
    [{ chains: [{ ...minimal(), startBlock: -1 }] }, `chains[0].startBlock must be from 0 to ${Number.MAX_SAFE_INTEGER}`],
    [{ chains: [{ ...minimal(), reorgDepth: 0 }] }, 'chains[0].reorgDepth must be from 1 to 10000'],
    [{ chains: [{ ...minimal(), maxBlockRange: '2000' }] }, 'chains[0].maxBlockRange must be a number'],
    [{ chains: [{ ...minimal(), requestsPerSecond: 0 }] }, 'chains[0].requestsPerSecond must be more than 0'],
    [{ chains: [{ ...minimal(), holders: 'yes' }] }, 'chains[0].holders must be true or false'],
    [{ chains: [{ ...minimal(), dexes: [] }] }, 'chains[0].dexes must name at least one dex'],
    [
      { chains: [{ ...minimal(), dexes: [{ name: 'v2', protocol: 'sushi', factory: FACTORY }] }] },
      'chains[0].dexes[0].protocol must be uniswap-v2 or uniswap-v3',
    ],
    [
      { chains: [{ ...minimal(), dexes: [{ name: 'v2', protocol: 'uniswap-v2', factory: '0x12' }] }] },
      'chains[0].dexes[0].factory must be 0x and 40 hex digits',
    ],
    [{ chains: [{ ...minimal(), quotes: [{ address: USDC }] }] }, 'chains[0].quotes[0] must be {"address","usd"} or {"address","usdPool"}'],
    [{ chains: [{ ...minimal(), chain: 'eth' }] }, 'chains[0].chain must be one of CHAINS (base)'],
    [{ chains: [minimal(), minimal()] }, 'chains[1].chain base is configured twice'],
    [
      {
        chains: [
          {
            ...minimal(),
            dexes: [
              { name: 'v2', protocol: 'uniswap-v2', factory: FACTORY },
              { name: 'v2', protocol: 'uniswap-v3', factory: FACTORY },
            ],
          },
        ],
      },
      'chains[0].dexes[1].name v2 is used twice',
    ],
    [
      {
        chains: [
          {
            ...minimal(),
            quotes: [
              { address: USDC, usd: 1 },
              { address: USDC.toLowerCase(), usd: 1 },
            ],
          },
        ],
      },
      'chains[0].quotes[1].address is listed twice',
    ],
    [{ chains: [{ ...minimal(), quotes: [{ address: WETH, usdPool: WETH }] }] }, 'chains[0].quotes[0].usdPool must be a pool, not the quote itself'],
  ])('refuses %j: %s', (value, message) => {
    expect(refusal(value)).toBe(message);
  });

  it('refuses a file that is not an object', () => {
    expect(refusal([])).toMatch(/^the file /);
    expect(refusal(null)).toMatch(/^the file /);
  });
});

/**
 * Query parameters shared by the /v1 read routes, built on src/http/validate.ts so their errors
 * read like every other one ("limit must be an integer from 1 to 1000") and their JSON Schema
 * (enum, pattern, description) comes with them.
 */
import { z } from 'zod';
import { parseAddressKey, type Chains } from '../../domain/chains.js';
import { parseResolution, SUPPORTED_RESOLUTIONS, type Resolution } from '../../domain/resolution.js';
import { errors } from '../../errors.js';
import { addressKeyPathParam, enumParam } from '../validate.js';
import type { TokenRow, TokensRepo } from '../../store/port/repos.js';
import type { Async } from '../../store/port/async.js';

/** Latest time accepted in from / to: just after the last second ingest accepts (9999-12-31), as /udf/history. */
export const MAX_TIME = 253402300800;

/** Every spelling of a resolution the routes accept: the UDF list plus `D`, `W`, `M`. */
export const RESOLUTION_SPELLINGS = [...SUPPORTED_RESOLUTIONS, 'D', 'W', 'M'] as const;

/** A chart resolution in the UDF spelling (`D`, `W`, `M` as aliases of `1D`, `1W`, `1M`). */
export const resolutionParam = () =>
  z
    .enum(RESOLUTION_SPELLINGS, { message: `must be one of ${SUPPORTED_RESOLUTIONS.join(', ')}` })
    .transform((v) => parseResolution(v) as Resolution)
    .meta({ description: 'A resolution: seconds (1S..30S), minutes (1..240), 1D, 1W, 1M; D, W, M are aliases of 1D, 1W, 1M' });

/**
 * A comma-separated list of 1..max addresses, each a store key (`chain:address` on a chain other
 * than the default, docs/chains.md); keeps the spelling asked. A malformed plain address is 400
 * invalid_parameter, as before chains; a bad `chain:address` 400 invalid_address.
 */
export const addressListParam = (max: number, chains: Chains) =>
  z
    .string()
    .transform((v, ctx) => {
      const parts = v.split(',');
      if (parts.length > max) {
        ctx.addIssue({ code: 'custom', message: `must list at most ${max} addresses` });
        return z.NEVER;
      }
      const out: { asked: string; address: string }[] = [];
      for (const asked of parts) {
        const address = parseAddressKey(asked, chains);
        if (typeof address !== 'string') {
          const shown = asked.length > 64 ? `${asked.slice(0, 64)}...` : asked;
          if (asked.includes(':')) {
            const problem = `has ${JSON.stringify(shown)}: ${address.error}`;
            ctx.addIssue({ code: 'custom', message: problem, params: { code: 'invalid_address', problem } });
          } else ctx.addIssue({ code: 'custom', message: `has a malformed address: "${shown}"` });
          return z.NEVER;
        }
        out.push({ asked, address });
      }
      return out;
    })
    .meta({
      description:
        chains.list.length > 1
          ? `Comma-separated addresses, at most ${max}, each \`chain:address\` or the address alone on the default chain (${chains.defaultChain}); each answer is keyed by the address exactly as asked`
          : `Comma-separated addresses, at most ${max}; each answer is keyed by the address exactly as asked`,
      pattern: `^[^,]+(,[^,]+){0,${max - 1}}$`,
    });

/** The path parameters of a token's routes: 400 invalid_address when malformed or on an unknown chain (the router checks it). */
export const tokenPath = (chains: Chains) => z.object({ address: addressKeyPathParam(chains) });

/**
 * `chain=` of the lists (docs/chains.md): one chain of the deployment, else 400
 * invalid_parameter; absent, the list covers every chain.
 */
export const chainParam = (chains: Chains) =>
  enumParam(chains.list as unknown as readonly [string, ...string[]])
    .optional()
    .describe(`Only tokens of this chain (one of ${chains.list.join(', ')}); every chain when absent`);

/** The token of a well-formed address: 404 token_not_found when the store has none. */
export async function findToken(tokens: Async<TokensRepo>, address: string): Promise<TokenRow> {
  const token = await tokens.byAddress(address);
  if (token === undefined) throw errors.tokenNotFound(address);
  return token;
}

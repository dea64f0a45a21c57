/**
 * Subscriptions and events (docs/api.md, Subscriptions, events, ingest): POST /v1/tokens/register, GET
 * /v1/tokens/registered, DELETE /v1/tokens/registered/:address, GET /v1/events. Thin handlers
 * over the subscriptions and events services; every answer is private to the key's tenant
 * (`Cache-Control: no-store`). Reads need the `read` scope; registering and removing need `manage`.
 * A token is named by its address on the default chain or by `chain:address` (docs/chains.md); a
 * chain not configured is 400 `invalid_address`.
 */
import { z } from 'zod';
import { normalizeAddress } from '../../domain/address.js';
import { isChainName, parseAddressKey, type Chains } from '../../domain/chains.js';
import { errors } from '../../errors.js';
import { bodyObject } from '../body.js';
import { ApiRouter } from '../route.js';
import { ADDRESS_DESCRIPTION, addressKeyPathParam, intParam } from '../validate.js';
import type { RegisterResult, ShownSubscription } from '../../services/subscriptions.js';
import type { AppContext } from '../types.js';
import type { Services } from '../../services/index.js';
import * as S from './schemas/subscriptions.js';

/** An address, or `chain:address` with a well-formed chain name: whether the chain is configured is the handler's check. */
function addressForm(v: string): boolean {
  const colon = v.indexOf(':');
  if (colon === -1) return normalizeAddress(v) !== null;
  return isChainName(v.slice(0, colon)) && normalizeAddress(v.slice(colon + 1)) !== null;
}

const CHAIN_ADDRESS_DESCRIPTION = `${ADDRESS_DESCRIPTION}; on a chain other than the default, chain:address (docs/chains.md)`;

/**
 * The store key of the token a client named, or 400 `invalid_address` for a chain the deployment
 * does not serve (the form was checked by the schema). Shared with the dashboard.
 */
export function registeredKey(value: string, chains: Chains): string {
  const key = parseAddressKey(value, chains);
  if (typeof key !== 'string') throw errors.invalidAddress('address', key.error);
  return key;
}

/** The body of registering a token, shared with the dashboard (src/http/dashboard.ts). */
export const registerBody = bodyObject({
  address: z
    .unknown()
    .refine((v) => typeof v === 'string' && addressForm(v), { message: 'must be a well-formed address' })
    .transform((v) => v as string)
    .meta({ type: 'string', description: `The token: ${CHAIN_ADDRESS_DESCRIPTION}` }),
  webhookUrl: z
    .unknown()
    .refine((v) => v === null || typeof v === 'string', { message: 'must be a string (an http or https URL) or null' })
    .transform((v) => v as string | null)
    .meta({ type: ['string', 'null'], description: 'An http or https URL to POST events to; null removes the webhook' })
    .optional(),
});

/**
 * The path of one registered token, as its store key: 400 invalid_address when it names none or a
 * chain the deployment does not serve (the /v1 token paths' parameter).
 */
export const registeredPath = (chains: Chains) => z.object({ address: addressKeyPathParam(chains) });

const eventsQuery = z.object({
  cursor: z.string().optional(),
  limit: intParam(1, 1000).prefault('100'),
});

const privateAnswer = (ctx: AppContext) => ctx.set('Cache-Control', 'no-store');

/**
 * The answer to a registration, here and on the dashboard: 201 for a new one, 200 for one that
 * was already there; the webhook secret only when this call made it (it is never shown again).
 */
export function registeredAnswer(r: RegisterResult, ctx: AppContext): { subscription: ShownSubscription; webhookSecret?: string } {
  ctx.status = r.created ? 201 : 200;
  return r.webhookSecret === undefined ? { subscription: r.subscription } : { subscription: r.subscription, webhookSecret: r.webhookSecret };
}

export function subscriptionsRouter(deps: { services: Pick<Services, 'events' | 'subscriptions' | 'chains'> }): ApiRouter {
  const api = new ApiRouter();
  const { events, chains } = deps.services;
  const subscriptions = () => deps.services.subscriptions;

  api.add(
    {
      method: 'post',
      path: '/v1/tokens/register',
      access: 'key',
      tag: 'subscriptions',
      scope: 'manage',
      body: registerBody,
      response: S.registered,
      example: S.registeredExample,
      statuses: [200, 201],
      summary: 'Register a token (idempotent); a webhook secret is returned the first time the tenant sets a webhook',
    },
    async ({ body, caller }, ctx) => {
      privateAnswer(ctx);
      return registeredAnswer(await subscriptions().register(caller.tenant.id, registeredKey(body.address, chains), body.webhookUrl), ctx);
    },
  );

  api.add(
    {
      method: 'get',
      path: '/v1/tokens/registered',
      summary: "The tenant's registered tokens",
      access: 'key',
      tag: 'subscriptions',
      scope: 'read',
      response: S.subscriptionList,
      example: S.subscriptionListExample,
    },
    async ({ caller }, ctx) => {
      privateAnswer(ctx);
      return { subscriptions: await subscriptions().list(caller.tenant.id) };
    },
  );

  api.add(
    {
      method: 'delete',
      path: '/v1/tokens/registered/:address',
      access: 'key',
      tag: 'subscriptions',
      scope: 'manage',
      params: registeredPath(chains),
      response: S.subscriptionRemoved,
      example: S.subscriptionRemovedExample,
      summary: 'Remove a registration (its pending webhook deliveries are cancelled)',
    },
    async ({ params, caller }, ctx) => {
      privateAnswer(ctx);
      return { subscription: await subscriptions().remove(caller.tenant.id, params.address) };
    },
  );

  api.add(
    {
      method: 'get',
      path: '/v1/events',
      access: 'key',
      tag: 'subscriptions',
      scope: 'read',
      query: eventsQuery,
      response: S.eventsPage,
      example: S.eventsPageExample,
      summary: "The tenant's events, oldest first, resumable with nextCursor (7 days are kept)",
    },
    // A cursor not issued to this tenant is the service's EventCursorError: 400 invalid_cursor (src/http/service-errors.ts).
    ({ query, caller }, ctx) => {
      privateAnswer(ctx);
      return events.page(caller.tenant.id, query.cursor, query.limit);
    },
  );

  return api;
}

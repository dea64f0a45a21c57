/**
 * Subscriptions and events (docs/api.md, Subscriptions, events, ingest): POST /v1/tokens/register, GET
 * /v1/tokens/registered, DELETE /v1/tokens/registered/:address, GET /v1/events. Thin handlers
 * over the subscriptions and events services; every answer is private to the key's tenant
 * (`Cache-Control: no-store`). Reads need the `read` scope; registering and removing need `manage`.
 */
import { z } from 'zod';
import { ApiError } from '../../errors.js';
import { normalizeAddress } from '../../domain/address.js';
import { requireKey } from '../auth.js';
import { bodyObject, readJsonBody } from '../body.js';
import { ApiRouter } from '../route.js';
import { intParam, pathAddress } from '../validate.js';
import { EventCursorError } from '../../services/events.js';
import type { AppContext, AppDeps } from '../types.js';
import * as S from './schemas/subscriptions.js';

const registerBody = bodyObject({
  address: z
    .unknown()
    .refine((v) => typeof v === 'string' && normalizeAddress(v) !== null, { message: 'must be a well-formed address' })
    .transform((v) => v as string)
    .meta({ type: 'string', description: 'The token address' }),
  webhookUrl: z
    .unknown()
    .refine((v) => v === null || typeof v === 'string', { message: 'must be a string (an http or https URL) or null' })
    .transform((v) => v as string | null)
    .meta({ type: ['string', 'null'], description: 'An http or https URL to POST events to; null removes the webhook' })
    .optional(),
});

const eventsQuery = z.object({
  cursor: z.string().optional(),
  limit: intParam(1, 1000).prefault('100'),
});

const privateAnswer = (ctx: AppContext) => ctx.set('Cache-Control', 'no-store');

export function subscriptionsRouter(deps: AppDeps): ApiRouter {
  const api = new ApiRouter();
  const { events } = deps.services;
  const subscriptions = () => deps.services.subscriptions;

  api.add(
    {
      method: 'post',
      path: '/v1/tokens/register',
      access: 'keyed',
      tag: 'subscriptions',
      scope: 'manage',
      body: registerBody,
      response: S.registered,
      example: S.registeredExample,
      statuses: [200, 201],
      summary: 'Register a token (idempotent); a webhook secret is returned the first time the tenant sets a webhook',
    },
    async (ctx) => {
      const { tenant } = requireKey(ctx, 'manage');
      const body = await readJsonBody(ctx, registerBody);
      privateAnswer(ctx);
      const r = await subscriptions().register(tenant.id, body.address, body.webhookUrl);
      ctx.status = r.created ? 201 : 200;
      return r.webhookSecret === undefined ? { subscription: r.subscription } : { subscription: r.subscription, webhookSecret: r.webhookSecret };
    },
  );

  api.add(
    {
      method: 'get',
      path: '/v1/tokens/registered',
      summary: "The tenant's registered tokens",
      access: 'keyed',
      tag: 'subscriptions',
      scope: 'read',
      response: S.subscriptionList,
      example: S.subscriptionListExample,
    },
    (ctx) => {
      const { tenant } = requireKey(ctx, 'read');
      privateAnswer(ctx);
      return { subscriptions: subscriptions().list(tenant.id) };
    },
  );

  api.add(
    {
      method: 'delete',
      path: '/v1/tokens/registered/:address',
      access: 'keyed',
      tag: 'subscriptions',
      scope: 'manage',
      response: S.subscriptionRemoved,
      example: S.subscriptionRemovedExample,
      summary: 'Remove a registration (its pending webhook deliveries are cancelled)',
    },
    (ctx) => {
      const { tenant } = requireKey(ctx, 'manage');
      const address = pathAddress(ctx.params.address);
      privateAnswer(ctx);
      return { subscription: subscriptions().remove(tenant.id, address) };
    },
  );

  api.add(
    {
      method: 'get',
      path: '/v1/events',
      access: 'keyed',
      tag: 'subscriptions',
      scope: 'read',
      query: eventsQuery,
      response: S.eventsPage,
      example: S.eventsPageExample,
      summary: "The tenant's events, oldest first, resumable with nextCursor (7 days are kept)",
    },
    (ctx, query) => {
      const { tenant } = requireKey(ctx, 'read');
      privateAnswer(ctx);
      try {
        return events.page(tenant.id, query.cursor, query.limit ?? 100);
      } catch (err) {
        if (err instanceof EventCursorError) throw new ApiError(400, 'invalid_cursor', err.message, { param: 'cursor' });
        throw err;
      }
    },
  );

  return api;
}

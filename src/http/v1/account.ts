/**
 * Account and API keys: /v1/me, /v1/keys (docs/api.md, Authentication and keys). Thin handlers
 * over the accounts service (its AccountError kinds become the contract's errors in
 * src/http/service-errors.ts); the key bodies are shared with the dashboard. Every answer is
 * private to the key's tenant and carries `Cache-Control: no-store` (the ones with a secret
 * above all).
 */
import { z } from 'zod';
import { bodyInt, bodyObject, bodyScopes } from '../body.js';
import { ApiRouter } from '../route.js';
import { MAX_GRACE_SECONDS, MAX_KEY_NAME } from '../../services/accounts.js';
import type { AppContext } from '../types.js';
import type { Services } from '../../services/index.js';
import * as S from './schemas/account.js';

const keyName = z
  .unknown()
  .refine((v) => v === null || (typeof v === 'string' && v.length >= 1 && v.length <= MAX_KEY_NAME && !/[\u0000-\u001f\u007f]/.test(v)), {
    message: `must be null or a string of 1 to ${MAX_KEY_NAME} characters without control characters`,
  })
  .transform((v) => v as string | null)
  .meta({ type: ['string', 'null'], minLength: 1, maxLength: MAX_KEY_NAME, description: 'A name for the key (no control characters)' });

/** The bodies of creating and rotating a key, shared with the dashboard (src/http/dashboard.ts). */
export const createKeyBody = bodyObject({ name: keyName.prefault(null), scopes: bodyScopes().prefault(['read']) });
export const rotateKeyBody = bodyObject({ graceSeconds: bodyInt(0, MAX_GRACE_SECONDS).prefault(0) });
/** The path of one key. */
export const keyPath = z.object({ id: z.string().describe('Key id') });

const privateAnswer = (ctx: AppContext) => ctx.set('Cache-Control', 'no-store');

export function accountRouter(deps: { services: Pick<Services, 'accounts'> }): ApiRouter {
  const accounts = deps.services.accounts;
  const api = new ApiRouter();

  api.add(
    {
      method: 'get',
      path: '/v1/me',
      summary: 'The calling key, its tenant, plan and rate-limit state',
      access: 'key',
      tag: 'account',
      response: S.me,
      example: S.meExample,
    },
    ({ caller: { key, tenant, plan } }, ctx) => {
      privateAnswer(ctx);
      const rl = ctx.state.rateLimit;
      return {
        tenant: { id: tenant.id, name: tenant.name, plan: tenant.plan, createdAt: tenant.createdAt },
        key: {
          id: key.id,
          name: key.name,
          prefix: key.prefix,
          scopes: key.scopes,
          createdAt: key.createdAt,
          lastUsedAt: key.lastUsedAt,
          expiresAt: key.expiresAt,
        },
        plan: { name: plan.name, requestsPerMinute: plan.requestsPerMinute, maxKeys: plan.maxKeys, maxSubscriptions: plan.maxSubscriptions },
        rateLimit: rl
          ? { limit: rl.limit, remaining: Math.max(0, rl.remaining), resetSeconds: Math.max(0, rl.resetSeconds) }
          : { limit: plan.requestsPerMinute, remaining: plan.requestsPerMinute, resetSeconds: 0 },
      };
    },
  );

  api.add(
    {
      method: 'get',
      path: '/v1/keys',
      summary: "The tenant's keys (never their secrets)",
      access: 'key',
      tag: 'account',
      scope: 'read',
      response: S.keyList,
      example: S.keyListExample,
    },
    async ({ caller }, ctx) => {
      privateAnswer(ctx);
      return { keys: await accounts.listKeys(caller.tenant.id) };
    },
  );

  api.add(
    {
      method: 'post',
      path: '/v1/keys',
      access: 'key',
      tag: 'account',
      scope: 'manage',
      body: createKeyBody,
      summary: 'Create a key (scopes default ["read"], never more than the calling key holds); the secret is shown once',
      response: S.keyCreated,
      example: S.keyCreatedExample,
      statuses: [201],
    },
    async ({ body, caller: { tenant, key } }, ctx) => {
      privateAnswer(ctx);
      const made = await accounts.issueKey(tenant.id, { name: body.name, scopes: body.scopes, callerScopes: key.scopes, callerKeyId: key.id });
      ctx.status = 201;
      return made;
    },
  );

  api.add(
    {
      method: 'delete',
      path: '/v1/keys/:id',
      summary: 'Revoke a key (again is fine)',
      access: 'key',
      tag: 'account',
      scope: 'manage',
      params: keyPath,
      response: S.keyRevoked,
      example: S.keyRevokedExample,
    },
    async ({ params, caller }, ctx) => {
      privateAnswer(ctx);
      return { key: await accounts.revokeKey(params.id, caller.tenant.id, caller.key.id) };
    },
  );

  api.add(
    {
      method: 'post',
      path: '/v1/keys/:id/rotate',
      summary: 'Replace a key; the old one works for graceSeconds more',
      access: 'key',
      tag: 'account',
      scope: 'manage',
      params: keyPath,
      body: rotateKeyBody,
      response: S.keyRotated,
      example: S.keyRotatedExample,
      statuses: [201],
    },
    async ({ params, body, caller }, ctx) => {
      privateAnswer(ctx);
      const made = await accounts.rotateKey(caller.tenant.id, params.id, body.graceSeconds, caller.key.scopes, caller.key.id);
      ctx.status = 201;
      return made;
    },
  );

  return api;
}

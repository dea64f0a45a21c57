/**
 * Response schemas of the account routes (docs/api.md, Authentication and keys): /v1/me and the key
 * routes. A key's secret appears only in the answer that creates it.
 */
import { z } from 'zod';
import { count, unixTime, unixTimeOrNull } from './common.js';

const scopes = z
  .array(z.string().describe('read, manage or ingest'))
  .describe('What the key may do: read (every read and the stream), manage (keys and subscriptions), ingest (POST /v1/ingest)');

export const keyView = z
  .strictObject({
    id: z.string().describe('Key id'),
    name: z.string().nullable().describe('Name given at creation, null without one'),
    prefix: z.string().describe('svc_live_ + the first 4 random characters, for display'),
    last4: z.string().describe('The last 4 characters of the secret, for display'),
    scopes,
    status: z.enum(['active', 'expiring', 'revoked', 'expired']).describe('expiring: in a rotation grace period'),
    createdAt: unixTime('Creation time'),
    lastUsedAt: unixTimeOrNull('Last use (written at most once a minute)'),
    expiresAt: unixTimeOrNull('The key is valid only before this time'),
    revokedAt: unixTimeOrNull('Revocation time'),
  })
  .describe('An API key (K); never its secret');

const keyExample: z.output<typeof keyView> = {
  id: 'key_3c9f2a7d1b',
  name: 'backend',
  prefix: 'svc_live_Ab3d',
  last4: 'x9Qz',
  scopes: ['read'],
  status: 'active',
  createdAt: 1763800000,
  lastUsedAt: 1763855000,
  expiresAt: null,
  revokedAt: null,
};
const secret = z.string().describe('The secret (svc_live_ + 32 or more base62 characters): shown once, never again');
const secretExample = 'svc_live_Ab3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zB5';

export const me = z
  .strictObject({
    tenant: z.strictObject({ id: z.string(), name: z.string(), plan: z.string().describe('Plan name'), createdAt: unixTime('Creation time') }),
    key: z.strictObject({
      id: z.string(),
      name: z.string().nullable(),
      prefix: z.string(),
      scopes,
      createdAt: unixTime('Creation time'),
      lastUsedAt: unixTimeOrNull('Last use'),
      expiresAt: unixTimeOrNull('Expiry'),
    }),
    plan: z.strictObject({
      name: z.string(),
      requestsPerMinute: count('Requests a minute of the tenant (all its keys share them)'),
      maxKeys: count('Active keys allowed'),
      maxSubscriptions: count('Registered tokens allowed'),
    }),
    rateLimit: z
      .strictObject({
        limit: count('Requests allowed per window'),
        remaining: count('Whole requests left'),
        resetSeconds: count('Seconds until the bucket is full again'),
      })
      .describe('The state of the rate limit after this request'),
  })
  .describe('The calling key, its tenant, plan and rate-limit state');
export const meExample: z.output<typeof me> = {
  tenant: { id: 'ten_8d2c41', name: 'Acme', plan: 'free', createdAt: 1763000000 },
  key: {
    id: keyExample.id,
    name: keyExample.name,
    prefix: keyExample.prefix,
    scopes: ['read', 'manage'],
    createdAt: 1763800000,
    lastUsedAt: 1763855000,
    expiresAt: null,
  },
  plan: { name: 'free', requestsPerMinute: 300, maxKeys: 3, maxSubscriptions: 10 },
  rateLimit: { limit: 300, remaining: 299, resetSeconds: 1 },
};

export const keyList = z.strictObject({ keys: z.array(keyView) }).describe("The tenant's keys");
export const keyListExample: z.output<typeof keyList> = { keys: [keyExample] };

export const keyCreated = z.strictObject({ key: keyView, secret }).describe('The new key and its secret');
export const keyCreatedExample: z.output<typeof keyCreated> = { key: keyExample, secret: secretExample };

export const keyRevoked = z.strictObject({ key: keyView }).describe('The revoked key');
export const keyRevokedExample: z.output<typeof keyRevoked> = { key: { ...keyExample, status: 'revoked', revokedAt: 1763856000 } };

export const keyRotated = z
  .strictObject({ key: keyView, secret, previous: keyView.describe('The old key: valid until its expiresAt (now + graceSeconds)') })
  .describe('The new key, its secret, and the key it replaces');
export const keyRotatedExample: z.output<typeof keyRotated> = {
  key: { ...keyExample, id: 'key_7e1a0b4c2d', prefix: 'svc_live_Zy8w', last4: 'Q2rT', createdAt: 1763856000, lastUsedAt: null },
  secret: secretExample,
  previous: { ...keyExample, status: 'expiring', expiresAt: 1763856300 },
};

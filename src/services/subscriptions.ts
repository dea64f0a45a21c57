/**
 * Subscriptions (docs/api.md, Subscriptions, events, ingest): a tenant registers token addresses, optionally with a
 * webhook URL, up to its plan's cap. Shared by `/v1/tokens/*` and the dashboard, so the
 * validation of addresses and webhook URLs lives here.
 *
 * Each tenant has one webhook signing secret, made the first time it sets a webhook and returned
 * by that call only.
 *
 * Chains (docs/chains.md): a subscription is kept under its token's store key, so registering
 * `base:0x…` and `ethereum:0x…` are two subscriptions, and the events of one chain's trades go to
 * the other's subscribers never. With several chains a subscription shows the plain `address` and
 * its `chain`; with one, as before chains.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../domain/clock.js';
import { nowSeconds } from '../domain/clock.js';
import { addressFields, oneChain, parseAddressKey, type Chains } from '../domain/chains.js';
import { newId } from '../domain/api-key.js';
import type { Repos, Subscription } from '../store/port/repos.js';
import { checkWebhookUrl, WebhookUrlError } from './webhook-target.js';

export type { Subscription } from '../store/port/repos.js';

/**
 * A refused subscription operation. `invalid`: a bad address or webhook URL (`param` names the
 * field); `limit`: the plan's cap is reached; `not_found`: no such subscription (or tenant).
 */
export class SubscriptionError extends Error {
  constructor(
    readonly kind: 'invalid' | 'limit' | 'not_found',
    message: string,
    readonly param?: 'address' | 'webhookUrl',
  ) {
    super(message);
    this.name = 'SubscriptionError';
  }
}

/** A subscription as answers show it: with `chain` after `address` when the deployment serves several chains. */
export type ShownSubscription = Omit<Subscription, 'address'> & { address: string; chain?: string };

export type RegisterResult = { created: boolean; subscription: ShownSubscription; webhookSecret?: string };

/** Subscriptions on `repos.subscriptions` (either engine); each write and its checks are one transaction. */
export function createSubscriptions(deps: {
  clock: Clock;
  repos: Pick<Repos, 'subscriptions'>;
  config?: { webhookAllowPrivate: boolean; chains?: Chains | undefined };
}) {
  const repo = deps.repos.subscriptions;
  const allowPrivate = deps.config?.webhookAllowPrivate ?? false;
  const chains = deps.config?.chains ?? oneChain();

  /** The store key of a token as a client names it (`address` or `chain:address`); a store key names itself. */
  const address = (value: unknown): string => {
    const key = typeof value === 'string' ? parseAddressKey(value, chains) : null;
    if (key === null || typeof key !== 'string') throw new SubscriptionError('invalid', 'address must be a well-formed address', 'address');
    return key;
  };

  const shown = (s: Subscription): ShownSubscription => {
    const { id, address: key, webhookUrl, createdAt } = s;
    return { id, ...addressFields(key, chains), webhookUrl, createdAt };
  };

  /** undefined: leave as is; null or '': no webhook; otherwise a checked, normalised URL. */
  const webhook = async (value: unknown): Promise<string | null | undefined> => {
    if (value === undefined) return undefined;
    if (value === null || value === '') return null;
    if (typeof value !== 'string') throw new SubscriptionError('invalid', 'webhookUrl must be a string or null', 'webhookUrl');
    try {
      return await checkWebhookUrl(value, allowPrivate);
    } catch (err) {
      if (err instanceof WebhookUrlError) throw new SubscriptionError('invalid', err.message, 'webhookUrl');
      throw err;
    }
  };

  // The cap's count and the insert it allows are one transaction (docs/operations.md, `inTransaction`).
  const registerTx = (tenantId: string, addr: string, url: string | null | undefined): Promise<RegisterResult> =>
    repo.inTransaction(async (tx) => {
      const now = nowSeconds(deps.clock);
      const max = await tx.maxSubscriptions(tenantId);
      if (max === undefined) throw new SubscriptionError('not_found', `no tenant with id ${tenantId}`);
      let webhookSecret: string | undefined;
      if (typeof url === 'string' && (await tx.webhookSecret(tenantId)) === undefined) {
        webhookSecret = `whsec_${randomBytes(32).toString('base64url')}`;
        await tx.insertWebhookSecret(tenantId, webhookSecret, now);
      }
      const found = await tx.find(tenantId, addr);
      if (found) {
        if (url !== undefined && url !== found.webhookUrl) await tx.setWebhook(found.id, url);
        const subscription = (await tx.find(tenantId, addr))!;
        return webhookSecret === undefined ? { created: false, subscription } : { created: false, subscription, webhookSecret };
      }
      if ((await tx.count(tenantId)) >= max) {
        throw new SubscriptionError('limit', `the plan allows at most ${max} subscription${max === 1 ? '' : 's'}; remove one first`);
      }
      const subscription: Subscription = { id: newId('sub'), address: addr, webhookUrl: url ?? null, createdAt: now };
      await tx.insert({ ...subscription, tenantId });
      return webhookSecret === undefined ? { created: true, subscription } : { created: true, subscription, webhookSecret };
    });

  return {
    /**
     * Registers `address` for the tenant (idempotent). `webhookUrl`: undefined keeps the current
     * one, null or '' removes it, a string sets it. The URL's host is resolved first, outside the
     * transaction. Throws SubscriptionError.
     */
    async register(tenantId: string, addressValue: string, webhookUrl?: string | null): Promise<RegisterResult> {
      const addr = address(addressValue);
      const url = await webhook(webhookUrl);
      const r = await registerTx(tenantId, addr, url);
      return { ...r, subscription: shown(r.subscription) };
    },

    /** The tenant's subscriptions, oldest first. */
    async list(tenantId: string): Promise<ShownSubscription[]> {
      return (await repo.list(tenantId)).map(shown);
    },

    /** Removes a subscription (and its pending webhook deliveries); returns it. */
    async remove(tenantId: string, addressValue: string): Promise<ShownSubscription> {
      const addr = address(addressValue);
      const removed = await repo.inTransaction(async (tx) => {
        const found = await tx.find(tenantId, addr);
        if (!found) throw new SubscriptionError('not_found', `${addr} is not registered`);
        await tx.remove(found.id);
        return found;
      });
      return shown(removed);
    },
  };
}

export type Subscriptions = ReturnType<typeof createSubscriptions>;

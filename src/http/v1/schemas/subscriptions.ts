/**
 * Response schemas of subscriptions, events and ingest (docs/api.md, Subscriptions, events, ingest).
 * An event is exactly the body a webhook receives.
 */
import { z } from 'zod';
import { address, count, EX, unixTime } from './common.js';
import { trade, tradeExample } from './tokens.js';

const subscription = z
  .strictObject({
    id: z.string().describe('Subscription id'),
    address: address('Registered token'),
    chain: z.string().optional().describe('The chain of the token: only in a deployment of several chains (docs/chains.md)'),
    webhookUrl: z.string().nullable().describe('Where events are POSTed, null without a webhook'),
    createdAt: unixTime('Registration time'),
  })
  .describe('A registered token (S)');
const subscriptionExample: z.output<typeof subscription> = {
  id: 'sub_5b7e2f9a1c',
  address: EX.token,
  webhookUrl: 'https://example.com/hooks/tokens',
  createdAt: 1763800000,
};

export const registered = z
  .strictObject({
    subscription,
    webhookSecret: z.string().optional().describe('The secret that signs webhooks: only the first time the tenant sets a webhook'),
  })
  .describe('The registration (201 when new, 200 when it already existed)');
export const registeredExample: z.output<typeof registered> = { subscription: subscriptionExample, webhookSecret: 'whsec_4f8a2c9e7b1d3f5a6c8e0b2d4f6a8c0e' };

export const subscriptionList = z.strictObject({ subscriptions: z.array(subscription) }).describe("The tenant's registered tokens");
export const subscriptionListExample: z.output<typeof subscriptionList> = { subscriptions: [subscriptionExample] };

export const subscriptionRemoved = z.strictObject({ subscription }).describe('The removed registration');
export const subscriptionRemovedExample: z.output<typeof subscriptionRemoved> = { subscription: subscriptionExample };

const tradesEvent = z
  .strictObject({
    id: z.string().describe('Event id (the Svc-Event-Id header of its webhook)'),
    type: z.literal('trades'),
    token: address('The token the trades are of'),
    chain: z.string().optional().describe('The chain of the token: only in a deployment of several chains (docs/chains.md)'),
    createdAt: unixTime('When the event was made'),
    data: z.strictObject({ trades: z.array(trade).max(1000).describe('Trades of one ingest batch (at most 1000; more make more events)') }),
  })
  .describe('Trades an ingest added');

const removedTrade = z
  .strictObject({
    id: z.number().int().describe('Record number of the removed trade'),
    signature: z.string().describe('Transaction signature (hash)'),
    index: z.number().int().describe('Index of the trade in its transaction'),
  })
  .describe('A trade taken out of the store');

const tradesRemovedEvent = z
  .strictObject({
    id: z.string().describe('Event id (the Svc-Event-Id header of its webhook)'),
    type: z.literal('trades_removed'),
    token: address('The token the trades were of'),
    chain: z.string().optional().describe('The chain of the token: only in a deployment of several chains (docs/chains.md)'),
    createdAt: unixTime('When the event was made'),
    data: z.strictObject({
      trades: z
        .array(removedTrade)
        .max(1000)
        .describe('Trades of the token a chain reorganisation took out, ascending by id (at most 1000; more make more events)'),
    }),
  })
  .describe('Trades removed because the blocks holding them were orphaned (a reorg)');

const event = z.discriminatedUnion('type', [tradesEvent, tradesRemovedEvent]).describe('An event (E): also the body of its webhook');

export const eventsPage = z
  .strictObject({
    events: z.array(event).describe('Oldest first; an empty page means caught up'),
    nextCursor: z.string().describe('Where to resume (never null)'),
  })
  .describe("A page of the tenant's events");
export const eventsPageExample: z.output<typeof eventsPage> = {
  events: [{ id: 'evt_000000000042', type: 'trades', token: EX.token, createdAt: 1763855995, data: { trades: [tradeExample] } }],
  nextCursor: 'ZXZ0XzAwMDAwMDAwMDA0Mg',
};

export const ingested = z
  .strictObject({
    accepted: count('Records written'),
    duplicates: count('Trades already stored (same signature and index), skipped'),
  })
  .describe('The batch was written, all of it');
export const ingestedExample: z.output<typeof ingested> = { accepted: 1250, duplicates: 3 };

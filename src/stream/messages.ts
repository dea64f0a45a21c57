/**
 * The server's messages of the live stream as the fan-out sends them (docs/api.md, Live stream):
 * bodies made once per change, framed once per distinct subscription id.
 */
import type { Bar } from '../domain/candles.js';
import type { Framer, StreamSource } from './types.js';

/**
 * The frame of one message for each subscription id: the bodies are the same for every
 * subscriber and sub ids repeat across connections (most are `s1`), so a message is encoded and
 * framed once per distinct id, not once per subscriber.
 */
export class Encoded {
  private readonly byId = new Map<string, Buffer>();
  /** The last id asked for and its frame: neighbours mostly share it (most are `s1`). */
  private lastId = '';
  private last: Buffer | null = null;
  constructor(
    private readonly frame: Framer,
    private readonly head: string,
    private readonly body: string,
  ) {}
  for(subId: string): Buffer {
    if (subId === this.lastId && this.last !== null) return this.last;
    let b = this.byId.get(subId);
    if (b === undefined) this.byId.set(subId, (b = this.frame(Buffer.from(`${this.head}"sub":"${subId}",${this.body}`))));
    this.lastId = subId;
    this.last = b;
    return b;
  }
}

/** The followed token a price or overview message names (the fan-out's TokenState is one). */
export type MessageToken = { readonly id: number; readonly address: string };

export const barJson = (b: Bar): string => `{"t":${b.t},"o":${b.o},"h":${b.h},"l":${b.l},"c":${b.c},"v":${b.v}}`;

export function priceBody(source: StreamSource, t: MessageToken): string | null {
  const p = source.price(t.id);
  if (p === null) return null;
  // The token's plain address, and its chain when there are several (docs/chains.md, Answers).
  const f = source.fields(t.address);
  const chain = f.chain === undefined ? '' : `,"chain":${JSON.stringify(f.chain)}`;
  return `"token":${JSON.stringify(f.address)}${chain},"priceUsd":${p.priceUsd},"priceChangePct24h":${p.priceChangePct24h},"lastTradeAt":${p.lastTradeAt}}`;
}

export function overviewBody(source: StreamSource, t: MessageToken): string | null {
  const o = source.overview(t.id);
  return o === null || o === undefined ? null : `"overview":${JSON.stringify(o)}}`;
}

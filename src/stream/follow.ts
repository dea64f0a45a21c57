/**
 * A subscription joining and leaving the fan-out (docs/api.md, Live stream): it is added to the
 * state of each token it follows, then sent what it starts with (the newest bar or a `since`
 * replay; a `sinceId` replay of trades; the current price or overview). Leaving removes it, and
 * a token nobody follows any more is forgotten. The hub runs `follow` in turn with the fan-out of
 * changes (never during one), so what it sends meets the live messages exactly.
 */
import { TRADES_PER_MESSAGE, type Fanout, type TokenState } from './fanout.js';
import { barJson, overviewBody, priceBody } from './messages.js';
import { barGroupKey, type BarSub, type Sub, type TradeSub } from './connection.js';
import { metricBars } from '../domain/chart-metric.js';
import type { Command } from './protocol.js';
import type { StreamReads } from './types.js';
import type { ChangeReads } from './change-reads.js';
import type { Bar } from '../domain/candles.js';

/** Trades a `sinceId` replay may hold; more gives `reset` overflow. */
export const MAX_REPLAY_TRADES = 10_000;

type Subscribe = Extract<Command, { op: 'subscribe' }>;

/**
 * Adds `sub` (just answered `subscribed`) to the fan-out and sends what it starts with. `view` is
 * what the fan-out reads (src/stream/change-reads.ts): its newest trade id is read here first,
 * for the state of a token nobody followed yet.
 */
export async function follow(fanout: Fanout, src: StreamReads, view: ChangeReads, sub: Sub, cmd: Subscribe): Promise<void> {
  const conn = sub.conn;
  const id = sub.id;
  await view.forSubscribe(fanout.tokens.size === 0);
  const state = (t: { id: number; address: string }): TokenState => fanout.state(t.id, t.address);
  // Added before the reads, as the fan-out would: no change is fanned out until this returns.
  if (sub.channel === 'bars') {
    const s = state(sub.token);
    const key = barGroupKey(sub);
    let group = s.bars.get(key);
    if (group === undefined) s.bars.set(key, (group = new Set()));
    group.add(sub);
    const since = cmd.channel === 'bars' ? cmd.since : null;
    const bars = await firstBars(src, view, sub, since);
    bars.forEach((b, i) => conn.sendState(sub, 'bar', String(b.t), `{"op":"bar","sub":"${id}","bar":${barJson(b)},"final":${i < bars.length - 1}}`));
    const last = bars[bars.length - 1];
    if (last !== undefined) [sub.lastT, sub.lastJson] = [last.t, barJson(last)];
  } else if (sub.channel === 'trades') {
    const s = state(sub.token);
    s.trades.add(sub);
    sub.from = cmd.channel === 'trades' && cmd.sinceId !== null ? Math.min(cmd.sinceId, s.lastTradeId) : s.lastTradeId;
    if (cmd.channel === 'trades' && cmd.sinceId !== null) replayTrades(await src.tradesAfter(s.id, cmd.sinceId, s.lastTradeId, MAX_REPLAY_TRADES + 1), sub);
  } else if (sub.channel === 'prices') {
    const states = sub.tokens.map((t) => state(t));
    for (const s of states) s.prices.add(sub);
    await Promise.all(states.map((s) => view.readPrice(s.id)));
    for (const s of states) {
      const body = priceBody(view, s);
      if (body === null) continue;
      conn.sendState(sub, 'price', String(s.id), `{"op":"price","sub":"${id}",${body}`);
      // Its only subscriber holds this state now: a change that leaves it so sends it nobody again.
      if (s.prices.size === 1) s.price.lastJson = body;
    }
  } else {
    const s = state(sub.token);
    s.overview.add(sub);
    await view.readOverview(s.id);
    const body = overviewBody(view, s);
    if (body !== null) {
      conn.sendState(sub, 'overview', 'overview', `{"op":"overview","sub":"${id}",${body}`);
      if (s.overview.size === 1) s.view.lastJson = body;
    }
  }
}

/** Rounds of reading the first bars until the newest trade id stands still across them. */
const MAX_ROUNDS = 3;

/**
 * The bars a subscription starts with (the newest, or those from `since`), read together with the
 * trades they hold, as a change's bars are (src/stream/change-reads.ts): the newest trade id is
 * read before and after them, and they are read again while it moves. Trades committed meanwhile
 * may wait for a change still to come; `sub.seenTo` tells it they are in these bars already.
 */
async function firstBars(src: StreamReads, view: ChangeReads, sub: BarSub, since: number | null): Promise<Bar[]> {
  for (let round = 1; ; round++) {
    const before = view.maxTradeId();
    const [read, supply] = await Promise.all([
      since !== null ? src.barsFrom(sub.token.id, sub.res, since) : src.newestBar(sub.token.id, sub.res).then((b) => (b === null ? [] : [b])),
      sub.metric === 'mcap' ? src.supply(sub.token.id) : null,
    ]);
    const after = await src.maxTradeId();
    if (after <= before || round >= MAX_ROUNDS) {
      sub.seenTo = Math.max(before, after);
      sub.supply = supply;
      // A supply gone since the subscribe was accepted: no cap to show until it is back.
      return sub.metric === 'mcap' && supply === null ? [] : metricBars(read, sub.metric, supply);
    }
    await view.forSubscribe();
  }
}

/** Every stored trade of the token after `sinceId` that the live messages will not carry (`trades`, read up to the token's last fanned-out id). */
function replayTrades(trades: readonly unknown[], sub: TradeSub): void {
  if (trades.length > MAX_REPLAY_TRADES) {
    sub.conn.stopTrades(sub, 'overflow');
    return;
  }
  for (let i = 0; i < trades.length; i += TRADES_PER_MESSAGE) {
    if (!sub.conn.tradesFit()) return;
    sub.conn.send('trades', `{"op":"trades","sub":"${sub.id}","trades":${JSON.stringify(trades.slice(i, i + TRADES_PER_MESSAGE))}}`);
  }
}

/** Removes `sub` from the state of every token it follows. */
export function unfollow(fanout: Fanout, sub: Sub): void {
  const links = sub.channel === 'prices' ? sub.tokens : [sub.token];
  for (const link of links) {
    const s = fanout.tokens.get(link.id);
    if (s === undefined) continue;
    if (sub.channel === 'bars') {
      const key = barGroupKey(sub as BarSub);
      const group = s.bars.get(key);
      group?.delete(sub as BarSub);
      if (group?.size === 0) s.bars.delete(key);
    } else if (sub.channel === 'trades') s.trades.delete(sub);
    else if (sub.channel === 'prices') s.prices.delete(sub);
    else s.overview.delete(sub);
    fanout.release(s);
  }
}

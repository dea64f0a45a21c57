// Live updates of the pages from /v1/stream (docs/api.md, Live stream): the chart's bars are pushed
// as they change, and the page is told when the token's overview or trades changed. Polling is
// only the fallback for when the WebSocket cannot connect (a proxy that refuses upgrades, say);
// the stream is tried again every 30 s, and polling stops once it connects.
//
// startLive(chart, { poll, changed }) follows whatever the chart shows (it watches chart.state,
// so a new token or resolution is followed without further calls):
//   poll()    what the page refreshes on its 5 s timer, run only while the stream is down
//   changed() called when the shown token's overview or trades changed, trades removed included
//             (the home page refetches them, so a trade a chain reorganisation took out leaves its list)
//
// A `reset` (a backfill, a changed supply, or a reorg that took trades out) reloads the chart's
// history: bars already drawn may have changed or be gone.

import { every } from './chart.js';

const POLL_MS = 5000;
const RETRY_MS = 30000;
const WATCH_MS = 200;

export function startLive(chart, { poll, changed } = {}) {
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/v1/stream`;
  const state = chart.state;
  const live = { status: 'connecting', pushes: 0, polls: 0 };
  state.live = live;

  let ws = null;
  let followed = null; // `${ticker}|${resolution}|${loads}` of the subscriptions in place
  let subs = [];
  let seq = 0;
  let stopPoll = null;
  let changeTimer = null;

  /** The ticker each subscribe was sent for, by id: a subscribed names a token by its plain address and chain, not by the ticker. */
  const askedFor = new Map();
  const send = (msg) => {
    const id = `p${++seq}`;
    if (msg.op === 'subscribe') askedFor.set(id, msg.token);
    ws.send(JSON.stringify({ ...msg, id }));
  };

  function startPolling() {
    if (stopPoll !== null || typeof poll !== 'function') return;
    stopPoll = every(POLL_MS, () => {
      live.polls++;
      return poll();
    });
  }

  function stopPolling() {
    stopPoll?.();
    stopPoll = null;
  }

  /** (Re)subscribes to what the chart shows, once it has loaded it. */
  function follow() {
    if (ws === null || ws.readyState !== 1) return;
    if (state.status !== 'ready' && state.status !== 'no_data') return;
    const key = `${state.ticker}|${state.resolution}|${state.loads}`;
    if (key === followed) return;
    followed = key;
    for (const sub of subs) send({ op: 'unsubscribe', sub });
    subs = [];
    const bars = { op: 'subscribe', channel: 'bars', token: state.ticker, resolution: state.resolution };
    // From the newest bar the chart holds, so nothing between its load and now is missed.
    if (state.lastTime !== null) bars.since = state.lastTime;
    send(bars);
    if (typeof changed === 'function') {
      send({ op: 'subscribe', channel: 'overview', token: state.ticker });
      send({ op: 'subscribe', channel: 'trades', token: state.ticker });
    }
  }

  function onMessage(m) {
    if (m.op === 'subscribed') {
      // An answer for a token no longer shown (the user moved on) is dropped at once. Compared by
      // the ticker asked for: with several chains, Base's and Ethereum's token share an address.
      const asked = askedFor.get(m.id);
      askedFor.delete(m.id);
      if (asked === state.ticker) subs.push(m.sub);
      else send({ op: 'unsubscribe', sub: m.sub });
      return;
    }
    if (!subs.includes(m.sub)) return;
    if (m.op === 'bar') {
      live.pushes++;
      const b = m.bar;
      chart.applyBar({ time: b.t, open: b.o, high: b.h, low: b.l, close: b.c, volume: b.v });
    } else if (m.op === 'reset') {
      // Older bars changed (a backfill, a reorg): reload history; follow() resubscribes after the load.
      chart.load(state.symbol, state.resolution);
    } else if ((m.op === 'overview' || m.op === 'trades' || m.op === 'removed') && changeTimer === null) {
      // Both usually come together: one refetch for the pair.
      changeTimer = setTimeout(() => {
        changeTimer = null;
        changed();
      }, 50);
    }
  }

  function connect() {
    let opened = false;
    live.status = 'connecting';
    ws = new WebSocket(url);
    ws.onopen = () => {
      opened = true;
      live.status = 'open';
      stopPolling();
      followed = null;
      subs = [];
      follow();
    };
    ws.onmessage = (ev) => {
      try {
        onMessage(JSON.parse(ev.data));
      } catch {
        // not ours
      }
    };
    ws.onclose = () => {
      ws = null;
      live.status = 'down';
      // Never connected: poll meanwhile. Dropped after working: catch up once, then reconnect soon.
      if (!opened) startPolling();
      else if (typeof poll === 'function') poll().catch(() => {});
      setTimeout(connect, opened ? 1000 : RETRY_MS);
    };
  }

  connect();
  setInterval(follow, WATCH_MS);
  return live;
}

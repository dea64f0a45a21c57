// The live chart page (/): search a token, see its chart, overview figures and latest trades,
// live from /v1/stream (polled every 5 s only when the stream cannot connect). The chosen token
// and resolution are kept in the page's URL (?symbol=&resolution=) so a view can be linked; a token
// off the default chain is `chain:address` there (docs/chains.md), and search results show their chain.
import { getJson, qs } from './api.js';
import { $, fill, h } from './dom.js';
import { createTokenChart, RESOLUTIONS, RESOLUTION_VALUES } from './chart.js';
import { startLive } from './live.js';
import * as fmt from './format.js';

const params = new URLSearchParams(location.search);
let resolution = RESOLUTION_VALUES.includes(params.get('resolution')) ? params.get('resolution') : '15';
let address = null;
/** The wallet whose trades are marked on the chart (pasted, or ?wallet= in the URL). */
let wallet = (params.get('wallet') ?? '').trim();

const chart = createTokenChart($('#chart'), { theme: 'dark', onChange: showHeader });

// Resolution buttons
const buttons = RESOLUTIONS.map(([value, label]) =>
  h('button', { type: 'button', 'aria-pressed': String(value === resolution), dataset: { resolution: value }, onclick: () => setResolution(value) }, label),
);
fill($('#resolutions'), buttons);

function setResolution(value) {
  if (value === resolution && chart.state.status !== 'error') return;
  resolution = value;
  for (const b of buttons) b.setAttribute('aria-pressed', String(b.dataset.resolution === value));
  keepInUrl();
  if (chart.state.symbol) chart.load(chart.state.symbol, resolution).then(loadMarks);
}

function keepInUrl() {
  const next = new URLSearchParams({ ...(address ? { symbol: address } : {}), resolution, ...(wallet ? { wallet } : {}) });
  history.replaceState(null, '', '?' + next.toString());
}

function showHeader(state) {
  if (state.status === 'error') {
    fill($('#token-symbol'), state.symbol ?? '–');
    fill($('#token-name'), state.error);
    return;
  }
  fill($('#token-symbol'), state.name ?? '–');
  fill($('#token-name'), state.description ?? '');
  fill($('#token-address'), state.ticker ? fmt.short(state.ticker) : '');
  $('#token-address').title = state.ticker ?? '';
}

/** Shows a token: chart first, then its figures and trades. */
async function select(symbol) {
  const state = await chart.load(symbol, resolution);
  if (state.status === 'error') {
    address = null;
    fill($('#overview'));
    fill($('#trades'));
    fill($('#overview-error'), state.error);
    return;
  }
  address = state.ticker;
  keepInUrl();
  document.title = `${state.name} · Token charts`;
  await Promise.all([loadOverview(), loadTrades(), loadMarks()]);
}

/** The wallet's trades of the token on the chart (/udf/marks), or none without a wallet. */
async function loadMarks() {
  const status = $('#wallet-status');
  if (!address || !wallet) {
    chart.setMarks(null);
    fill(status);
    return;
  }
  const asked = `${address}|${wallet}|${resolution}`;
  try {
    const to = Math.floor(Date.now() / 1000) + 86_400;
    const m = await getJson('/udf/marks?' + qs({ symbol: address, from: chart.state.firstTime ?? 0, to, resolution, wallet }));
    if (asked !== `${address}|${wallet}|${resolution}`) return;
    chart.setMarks(m);
    const buys = m.label.filter((l) => l === 'B').length;
    fill(status, m.id.length === 0 ? 'no trades of this token' : `${buys} buys, ${m.id.length - buys} sells`);
  } catch (err) {
    if (asked === `${address}|${wallet}|${resolution}`) fill(status, err.status === 400 ? 'not a wallet address' : err.message);
    chart.setMarks(null);
  }
}

$('#wallet').value = wallet;
$('#wallet-form').addEventListener('submit', (e) => e.preventDefault());
$('#wallet').addEventListener('input', () => {
  const next = $('#wallet').value.trim();
  if (next === wallet) return;
  wallet = next;
  keepInUrl();
  loadMarks();
});

const stat = (label, value, cls) => h('div', {}, h('dt', {}, label), h('dd', { class: cls }, value));

async function loadOverview() {
  if (!address) return;
  const asked = address;
  try {
    const o = await getJson(`/v1/token/${encodeURIComponent(asked)}/overview`);
    if (asked !== address) return;
    const w = o.windows ?? {};
    const day = w['24h'] ?? {};
    fill($('#token-price'), fmt.price(o.priceUsd));
    fill($('#token-change'), h('span', { class: fmt.direction(day.priceChangePct) }, `${fmt.pct(day.priceChangePct)} 24h`));
    fill(
      $('#overview'),
      stat('Price', fmt.price(o.priceUsd)),
      stat('Change 5m', fmt.pct(w['5m']?.priceChangePct), fmt.direction(w['5m']?.priceChangePct)),
      stat('Change 1h', fmt.pct(w['1h']?.priceChangePct), fmt.direction(w['1h']?.priceChangePct)),
      stat('Change 6h', fmt.pct(w['6h']?.priceChangePct), fmt.direction(w['6h']?.priceChangePct)),
      stat('Change 24h', fmt.pct(day.priceChangePct), fmt.direction(day.priceChangePct)),
      stat('Volume 24h', fmt.usd(day.volumeUsd)),
      stat('Trades 24h', `${fmt.amount(day.trades)} (${fmt.amount(day.buys)} buys / ${fmt.amount(day.sells)} sells)`),
      stat('Wallets 24h', fmt.amount(day.uniqueWallets)),
      stat('Liquidity', fmt.usd(o.liquidityUsd)),
      stat('Market cap', fmt.usd(o.marketCapUsd)),
      stat('FDV', fmt.usd(o.fdvUsd)),
      stat('Holders', fmt.amount(o.holders)),
      stat('Markets', fmt.amount(o.markets)),
      stat('Last trade', fmt.dateTime(o.lastTradeAt)),
    );
    fill($('#overview-error'));
  } catch (err) {
    if (asked === address) fill($('#overview-error'), `Overview unavailable: ${err.message}`);
  }
}

async function loadTrades() {
  if (!address) return;
  const asked = address;
  try {
    const { trades } = await getJson(`/v1/token/${encodeURIComponent(asked)}/trades?limit=20`);
    if (asked !== address) return;
    fill(
      $('#trades'),
      trades.length === 0
        ? h('tr', {}, h('td', { colspan: 7, class: 'muted' }, 'No trades yet'))
        : trades.map((t) =>
            h(
              'tr',
              {},
              h('td', {}, fmt.timeOfDay(t.blockTime)),
              h('td', { class: t.side === 'buy' ? 'up' : 'down' }, t.side),
              h('td', { class: 'num' }, fmt.price(t.priceUsd)),
              h('td', { class: 'num' }, fmt.amount(t.amount)),
              h('td', { class: 'num' }, fmt.usd(t.volumeUsd)),
              h('td', { class: 'mono', title: t.wallet }, fmt.short(t.wallet)),
              h('td', {}, t.dex ?? ''),
            ),
          ),
    );
  } catch {
    // Kept as it was; the next refresh tries again.
  }
}

// Search box: results as the user types (debounced); Enter picks the first.
const input = $('#search');
const list = $('#search-results');
let searchTimer = null;
let searchSeq = 0;

function hideResults() {
  list.hidden = true;
  fill(list);
}

async function search(q) {
  const seq = ++searchSeq;
  try {
    const { results } = await getJson('/v1/search?' + qs({ q, limit: 8 }));
    if (seq !== searchSeq) return;
    fill(
      list,
      results.length === 0
        ? h('li', { class: 'muted' }, 'No match')
        : results.map((r) =>
            h(
              'li',
              {},
              h(
                'button',
                { type: 'button', dataset: { address: named(r) }, onclick: () => pick(named(r)) },
                h(
                  'span',
                  {},
                  h('strong', {}, r.symbol),
                  ' ',
                  h('span', { class: 'muted' }, r.name),
                  // The same symbol (even the same address) may be a token on several chains.
                  ...(r.chain ? [' ', h('span', { class: 'chain', dataset: { chain: r.chain } }, r.chain)] : []),
                ),
                h('span', { class: 'muted' }, fmt.price(r.priceUsd)),
              ),
            ),
          ),
    );
    list.hidden = false;
  } catch (err) {
    if (seq !== searchSeq) return;
    fill(list, h('li', { class: 'error' }, err.message));
    list.hidden = false;
  }
}

/** How the chart names a listed token: `chain:address` when the answer names a chain (several chains), else its address. */
const named = (r) => (r.chain ? `${r.chain}:${r.address}` : r.address);

function pick(addr) {
  hideResults();
  input.value = '';
  select(addr);
}

input.addEventListener('input', () => {
  clearTimeout(searchTimer);
  const q = input.value.trim();
  if (q === '') return hideResults();
  searchTimer = setTimeout(() => search(q.slice(0, 64)), 200);
});
input.addEventListener('keydown', (e) => {
  if (e.key === 'Escape') hideResults();
  if (e.key === 'Enter') {
    const first = list.querySelector('button[data-address]');
    if (first) pick(first.dataset.address);
    else if (input.value.trim() !== '') pick(input.value.trim());
  }
});
document.addEventListener('click', (e) => {
  if (!e.target.closest('.search')) hideResults();
});

/** The token to show first: the one in the URL, else the most traded in the last hour (a live one), else the most liquid. */
async function start() {
  const wanted = params.get('symbol');
  if (wanted) return select(wanted);
  try {
    const { tokens } = await getJson('/v1/market/trending?' + qs({ window: '1h', limit: 1 }));
    if (tokens?.[0]) return select(named(tokens[0]));
    const found = await getJson('/udf/search?' + qs({ query: '', limit: 1 }));
    if (Array.isArray(found) && found[0]) return select(found[0].ticker);
  } catch {
    // fall through
  }
  fill($('#token-name'), 'No tokens in the store yet');
}

start();
// Live from /v1/stream; the 5 s refresh only while the stream cannot connect.
startLive(chart, {
  poll: () => Promise.all([chart.refresh(), loadOverview(), loadTrades(), loadMarks()]),
  changed: () => Promise.all([loadOverview(), loadTrades(), loadMarks()]),
});

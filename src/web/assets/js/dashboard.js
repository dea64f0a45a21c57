// The dashboard (/dashboard): sign in with a tenant's email and password, then manage API keys
// (create, rotate with a grace period, revoke) and token subscriptions, and see the plan and
// usage. Calls the cookie-authenticated routes under /dashboard/api/ with the session's CSRF
// token in a header. A new secret comes only from the JSON answer of the call that made it, is
// shown once in the page and is dropped from it when dismissed; it never goes into a URL.
import { ApiFailure, getJson, sendJson } from './api.js';
import { $, fill, h } from './dom.js';
import * as fmt from './format.js';

const API = '/dashboard/api';
let csrfToken = null;

/** A state-changing call with the CSRF token; a 401 means the session ended. */
async function call(method, path, body) {
  try {
    return await sendJson(method, API + path, body, { 'X-CSRF-Token': csrfToken ?? '' });
  } catch (err) {
    if (err instanceof ApiFailure && err.status === 401) showSignIn('Your session has ended; sign in again.');
    throw err;
  }
}

async function read(path) {
  try {
    return await getJson(API + path);
  } catch (err) {
    if (err instanceof ApiFailure && err.status === 401) showSignIn('Your session has ended; sign in again.');
    throw err;
  }
}

function showSignIn(message = '') {
  csrfToken = null;
  hideSecrets();
  $('#app').hidden = true;
  $('#sign-out').hidden = true;
  fill($('#who'));
  $('#signin').hidden = false;
  fill($('#signin-error'), message);
  $('#email').focus();
}

async function showApp(session) {
  csrfToken = session.csrfToken;
  $('#signin').hidden = true;
  $('#app').hidden = false;
  $('#sign-out').hidden = false;
  fill($('#who'), `${session.tenant.name} (${session.tenant.email ?? session.tenant.id})`);
  $('#password').value = '';
  await refreshAll();
}

const refreshAll = () => Promise.all([loadAccount(), loadKeys(), loadSubscriptions()]);

// One-time secrets, one box at a time: a secret made while another is shown (a key, then a
// webhook secret) waits behind it, and the box says how many wait; dismissing one shows the next.
// Boxes never pile up, and no secret is dropped before its holder said it was saved.
const waitingSecrets = [];
function showSecret(title, secret) {
  waitingSecrets.push({ title, secret });
  if (waitingSecrets.length === 1) showNextSecret();
  else updateSecretsNote();
}
function showNextSecret() {
  const next = waitingSecrets[0];
  if (next === undefined) return fill($('#secrets'));
  const value = h('code', { class: 'secret-value' }, next.secret);
  const copied = h('span', { class: 'muted copied' });
  const box = h(
    'section',
    { class: 'secret-box' },
    h('strong', {}, next.title),
    h('p', { class: 'muted' }, 'Copy it now: it is shown only this once and cannot be shown again.'),
    value,
    h(
      'div',
      { class: 'row' },
      h('button', { type: 'button', class: 'primary copy', onclick: () => copy(value, copied) }, 'Copy'),
      h('button', { type: 'button', class: 'done', onclick: dismissSecret }, 'I have saved it'),
      copied,
      h('span', { class: 'muted waiting' }),
    ),
  );
  fill($('#secrets'), box);
  updateSecretsNote();
  box.scrollIntoView({ block: 'nearest' });
}
function updateSecretsNote() {
  const waiting = waitingSecrets.length - 1;
  const note = $('#secrets .waiting');
  if (note) fill(note, waiting > 0 ? `${waiting} more new ${waiting === 1 ? 'secret' : 'secrets'} after this one` : '');
}
function dismissSecret() {
  waitingSecrets.shift();
  showNextSecret();
}
function hideSecrets() {
  waitingSecrets.length = 0;
  fill($('#secrets'));
}
async function copy(value, copied) {
  try {
    await navigator.clipboard.writeText(value.textContent);
  } catch {
    // No clipboard API (an insecure context): select the text and use the legacy command.
    const range = document.createRange();
    range.selectNodeContents(value);
    const sel = getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
    document.execCommand('copy');
  }
  fill(copied, 'Copied');
}

// Plan and usage
const stat = (label, value) => h('div', {}, h('dt', {}, label), h('dd', {}, value));
async function loadAccount() {
  const a = await read('/account');
  const u = a.usage;
  fill(
    $('#plan'),
    stat('Plan', a.plan.name),
    stat('Requests per minute', fmt.amount(a.plan.requestsPerMinute)),
    stat('Active keys', `${u.activeKeys} of ${a.plan.maxKeys}`),
    stat('Subscriptions', `${u.subscriptions ?? '–'} of ${a.plan.maxSubscriptions}`),
    u.rateLimit ? stat('Requests left now', `${fmt.amount(u.rateLimit.remaining)} of ${fmt.amount(u.rateLimit.limit)}`) : null,
    u.rateLimit ? stat('Full again in', `${u.rateLimit.resetSeconds} s`) : null,
  );
  fill(
    $('#usage-note'),
    u.rateLimit ? 'The rate limit is shared by all keys of the account.' : 'Live request usage is not available here; the limits of the plan are shown.',
  );
}

// Keys. Revoked and expired keys stay in the API's list; the page hides them unless asked.
let allKeys = [];
const isDead = (k) => k.status === 'revoked' || k.status === 'expired';
const cell = (label, attrs, ...children) => h('td', { ...attrs, 'data-label': label }, ...children);

async function loadKeys() {
  ({ keys: allKeys } = await read('/keys'));
  showKeys();
}

function showKeys() {
  const showDead = $('#show-revoked').checked;
  const dead = allKeys.filter(isDead).length;
  fill($('#revoked-count'), String(dead));
  const keys = showDead ? allKeys : allKeys.filter((k) => !isDead(k));
  fill(
    $('#keys'),
    keys.length === 0
      ? h('tr', {}, h('td', { colspan: 8, class: 'muted' }, dead > 0 ? 'No active keys' : 'No keys yet'))
      : keys.map((k) => {
          const live = k.status === 'active' || k.status === 'expiring';
          return h(
            'tr',
            { dataset: { keyId: k.id } },
            cell('Name', {}, k.name ?? h('span', { class: 'muted' }, '(unnamed)')),
            cell('Key', { class: 'mono' }, `${k.prefix}…${k.last4}`),
            cell('Scopes', {}, k.scopes.join(', ')),
            cell('Status', {}, h('span', { class: `badge ${k.status}` }, k.status)),
            cell('Created', {}, fmt.dateTime(k.createdAt)),
            cell('Last used', {}, fmt.dateTime(k.lastUsedAt)),
            cell('Expires', {}, fmt.dateTime(k.expiresAt)),
            // The buttons in a box of their own: a flex cell would leave the table's layout.
            h(
              'td',
              { class: 'actions' },
              h(
                'div',
                { class: 'row' },
                live ? h('button', { type: 'button', 'data-action': 'rotate', onclick: () => rotate(k) }, 'Rotate') : null,
                k.status !== 'revoked' ? h('button', { type: 'button', class: 'danger', 'data-action': 'revoke', onclick: () => revoke(k) }, 'Revoke') : null,
              ),
            ),
          );
        }),
  );
}
$('#show-revoked').addEventListener('change', showKeys);

async function withError(target, fn) {
  fill(target);
  try {
    await fn();
  } catch (err) {
    fill(target, err.retryAfter ? `${err.message}` : err.message);
  }
}

$('#key-form').addEventListener('submit', (e) => {
  e.preventDefault();
  withError($('#key-error'), async () => {
    const name = $('#key-name').value.trim();
    const scopes = $('#key-scopes').value.split(',');
    const made = await call('POST', '/keys', name === '' ? { scopes } : { name, scopes });
    $('#key-name').value = '';
    showSecret(`Your new API key (${made.key.scopes.join(', ')})`, made.secret);
    await Promise.all([loadKeys(), loadAccount()]);
  });
});

function rotate(k) {
  const grace = Number($('#grace').value);
  const label = k.name ?? `${k.prefix}…${k.last4}`;
  if (!confirm(`Rotate key ${label}? The old key keeps working for ${grace} s.`)) return;
  withError($('#key-error'), async () => {
    const made = await call('POST', `/keys/${encodeURIComponent(k.id)}/rotate`, { graceSeconds: grace });
    showSecret(`Replacement for ${label}`, made.secret);
    await Promise.all([loadKeys(), loadAccount()]);
  });
}

function revoke(k) {
  const label = k.name ?? `${k.prefix}…${k.last4}`;
  if (!confirm(`Revoke key ${label}? Requests with it fail at once.`)) return;
  withError($('#key-error'), async () => {
    await call('DELETE', `/keys/${encodeURIComponent(k.id)}`);
    await Promise.all([loadKeys(), loadAccount()]);
  });
}

// Subscriptions
/**
 * How the dashboard names a subscription's token: `chain:address` when the answer names a chain (a
 * deployment of several, docs/chains.md), which is also what registering and removing it take.
 */
const tokenName = (s) => (s.chain ? `${s.chain}:${s.address}` : s.address);

async function loadSubscriptions() {
  const { subscriptions } = await read('/subscriptions');
  fill(
    $('#subs'),
    subscriptions.length === 0
      ? h('tr', {}, h('td', { colspan: 4, class: 'muted' }, 'No subscriptions yet'))
      : subscriptions.map((s) =>
          h(
            'tr',
            { dataset: { address: tokenName(s) } },
            cell('Token', { class: 'mono' }, tokenName(s)),
            cell('Webhook', { class: 'mono' }, s.webhookUrl ?? h('span', { class: 'muted' }, 'none (poll /v1/events)')),
            cell('Since', {}, fmt.dateTime(s.createdAt)),
            h(
              'td',
              { class: 'actions' },
              h('button', { type: 'button', class: 'danger', 'data-action': 'remove', onclick: () => removeSubscription(s) }, 'Remove'),
            ),
          ),
        ),
  );
}

$('#sub-form').addEventListener('submit', (e) => {
  e.preventDefault();
  withError($('#sub-error'), async () => {
    const address = $('#sub-address').value.trim();
    const webhookUrl = $('#sub-webhook').value.trim();
    const made = await call('POST', '/subscriptions', webhookUrl === '' ? { address } : { address, webhookUrl });
    $('#sub-address').value = '';
    $('#sub-webhook').value = '';
    if (made.webhookSecret) showSecret('Your webhook signing secret', made.webhookSecret);
    await Promise.all([loadSubscriptions(), loadAccount()]);
  });
});

function removeSubscription(s) {
  if (!confirm(`Stop the subscription to ${tokenName(s)}?`)) return;
  withError($('#sub-error'), async () => {
    await call('DELETE', `/subscriptions/${encodeURIComponent(tokenName(s))}`);
    await Promise.all([loadSubscriptions(), loadAccount()]);
  });
}

// Sign-in and sign-out
$('#signin-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  fill($('#signin-error'));
  try {
    const session = await sendJson('POST', API + '/sign-in', { email: $('#email').value.trim(), password: $('#password').value });
    await showApp(session);
  } catch (err) {
    const wait = err.retryAfter ? ` Try again in ${Math.ceil(Number(err.retryAfter) / 60)} min.` : '';
    fill($('#signin-error'), err.status === 429 ? `Too many failed sign-ins.${wait}` : err.message);
  }
});

$('#sign-out').addEventListener('click', async () => {
  try {
    await call('POST', '/sign-out');
  } finally {
    showSignIn();
  }
});

// Start: the existing session, if any.
getJson(API + '/session').then(showApp, () => showSignIn());

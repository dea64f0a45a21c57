/**
 * Which bucket a request lands in, through the real app: X-Forwarded-For only for TRUST_PROXY
 * hops, IPv6 grouped by /56, IPv4-mapped IPv6 as IPv4.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { limitedApp, limits, type LimitedApp } from './limited-app.js';

let t: LimitedApp;
afterEach(() => t?.close());

/** Spends a whole bucket (5 requests) with the given X-Forwarded-For. */
async function exhaust(xff: string): Promise<void> {
  for (let i = 0; i < 5; i++) await t.http.get('/probe/ok').set('X-Forwarded-For', xff).expect(200);
  await t.http.get('/probe/ok').set('X-Forwarded-For', xff).expect(429);
}

const remainingWith = async (xff: string) => limits(await t.http.get('/probe/ok').set('X-Forwarded-For', xff)).remaining;

describe('TRUST_PROXY=0', () => {
  it('ignores X-Forwarded-For: a forged header cannot pick a fresh bucket', async () => {
    t = limitedApp({ TRUST_PROXY: '0' });
    await exhaust('198.51.100.1');
    await t.http.get('/probe/ok').set('X-Forwarded-For', '198.51.100.2').expect(429);
    await t.http.get('/probe/ok').set('X-Forwarded-For', '2001:db8::1, 198.51.100.3').expect(429);
    await t.http.get('/probe/ok').set('X-Real-IP', '198.51.100.4').expect(429);
    await t.http.get('/probe/ok').expect(429);
  });
});

describe('TRUST_PROXY=1', () => {
  it('takes the right-most X-Forwarded-For entry as the client', async () => {
    t = limitedApp({ TRUST_PROXY: '1' });
    await exhaust('203.0.113.9, 198.51.100.1');
    // Whatever the client writes to the left, the proxy's entry decides.
    await t.http.get('/probe/ok').set('X-Forwarded-For', '10.9.9.9, 198.51.100.1').expect(429);
    await t.http.get('/probe/ok').set('X-Forwarded-For', '198.51.100.1').expect(429);
    expect(await remainingWith('198.51.100.1, 198.51.100.2')).toBe(4);
  });

  it('treats IPv4-mapped IPv6 as the same IPv4 client', async () => {
    t = limitedApp({ TRUST_PROXY: '1' });
    await exhaust('::ffff:198.51.100.7');
    await t.http.get('/probe/ok').set('X-Forwarded-For', '198.51.100.7').expect(429);
  });

  it('groups IPv6 clients by /56', async () => {
    t = limitedApp({ TRUST_PROXY: '1' });
    await exhaust('2001:db8:0:1200::1');
    await t.http.get('/probe/ok').set('X-Forwarded-For', '2001:db8:0:12ff:ffff:ffff:ffff:ffff').expect(429);
    await t.http.get('/probe/ok').set('X-Forwarded-For', '2001:DB8:0:1234::abcd').expect(429);
    expect(await remainingWith('2001:db8:0:1300::1')).toBe(4);
    expect(await remainingWith('2001:db8:1:1200::1')).toBe(4);
  });

  it('falls back to the proxy peer, not to a fresh bucket, when the forwarded value is garbage', async () => {
    t = limitedApp({ TRUST_PROXY: '1' });
    for (let i = 0; i < 5; i++) await t.http.get('/probe/ok').set('X-Forwarded-For', `garbage-${i}`).expect(200);
    await t.http.get('/probe/ok').set('X-Forwarded-For', 'something-else').expect(429);
    // With no header at all, Koa gives the socket peer: the same bucket.
    await t.http.get('/probe/ok').expect(429);
  });
});

describe('TRUST_PROXY=2', () => {
  it('takes the entry added by the outer of two trusted hops', async () => {
    t = limitedApp({ TRUST_PROXY: '2' });
    await exhaust('6.6.6.6, 198.51.100.1, 10.0.0.1');
    await t.http.get('/probe/ok').set('X-Forwarded-For', '7.7.7.7, 198.51.100.1, 10.0.0.2').expect(429);
    expect(await remainingWith('198.51.100.2, 10.0.0.1')).toBe(4);
  });
});

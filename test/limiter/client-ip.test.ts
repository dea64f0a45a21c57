/** Client address normalisation: IPv4-mapped IPv6, /56 grouping, ports, garbage. */
import { describe, expect, it } from 'vitest';
import { normalizeClientIp } from '../../src/http/client-ip.js';

const addr = (raw: string) => normalizeClientIp(raw)?.address ?? null;

describe('normalizeClientIp', () => {
  it('treats IPv4-mapped IPv6 as the IPv4 address, with the same bucket', () => {
    expect(addr('::ffff:1.2.3.4')).toBe('1.2.3.4');
    expect(addr('::ffff:0102:0304')).toBe('1.2.3.4');
    expect(normalizeClientIp('::ffff:1.2.3.4')!.key).toEqual(normalizeClientIp('1.2.3.4')!.key);
  });

  it('groups IPv6 by /56', () => {
    expect(addr('2001:db8:0:1200::1')).toBe('2001:db8:0:1200::/56');
    expect(addr('2001:db8:0:12ff:ffff:ffff:ffff:ffff')).toBe('2001:db8:0:1200::/56');
    expect(normalizeClientIp('2001:db8:0:12ab::9')!.key).toEqual(normalizeClientIp('2001:db8:0:1200::1')!.key);
    expect(normalizeClientIp('2001:db8:0:1300::1')!.key).not.toEqual(normalizeClientIp('2001:db8:0:1200::1')!.key);
    expect(normalizeClientIp('2001:db8:1:1200::1')!.key).not.toEqual(normalizeClientIp('2001:db8:0:1200::1')!.key);
  });

  it('drops the port or brackets a proxy may add', () => {
    expect(addr('203.0.113.7:51234')).toBe('203.0.113.7');
    expect(addr('[2001:db8::1]:443')).toBe('2001:db8::/56');
    expect(addr('[::ffff:203.0.113.7]')).toBe('203.0.113.7');
    expect(addr(' 203.0.113.7 ')).toBe('203.0.113.7');
  });

  it('refuses anything that is not a plain address', () => {
    for (const bad of ['', 'unknown', '1.2.3', '0x7f.1', '1.2.3.256', '1.2.3.4.5', "1.2.3.4' OR 1=1", '::g', '2001:db8::1/56', '_hidden']) {
      expect(normalizeClientIp(bad), bad).toBeNull();
    }
  });
});

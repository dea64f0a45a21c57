import { describe, expect, it } from 'vitest';
import { checkWebhookUrl, isPublicAddress, parseWebhookUrl, publicOnlyLookup, WebhookUrlError } from '../../src/services/webhook-target.js';

describe('webhook targets', () => {
  it.each([
    ['8.8.8.8', true],
    ['93.184.215.14', true],
    ['2606:4700::1111', true],
    ['127.0.0.1', false],
    ['127.255.0.1', false],
    ['10.0.0.1', false],
    ['172.31.255.255', false],
    ['192.168.0.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['255.255.255.255', false],
    ['224.0.0.1', false],
    ['::1', false],
    ['::', false],
    ['fe80::1', false],
    ['fd12:3456::1', false],
    ['::ffff:10.0.0.1', false],
    ['::ffff:8.8.8.8', true],
    ['64:ff9b::a00:1', false],
    ['2002:a00:1::', false],
    ['not-an-ip', false],
    ['', false],
    ['::127.0.0.1', false],
    ['::7f00:1', false],
    ['::ffff:7f00:1', false],
    ['::a00:1', false],
    ['64:ff9b::7f00:1', false],
    ['2002:7f00:1::', false],
    ['2002:a9fe:a9fe::1', false],
    ['64:ff9b:1::a00:1', false],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', false],
    ['::808:808', true],
    ['64:ff9b::808:808', true],
    ['2002:808:808::1', true],
  ])('judges %s public: %s', (ip, expected) => {
    expect(isPublicAddress(ip)).toBe(expected);
  });

  it('normalises a URL and refuses other forms', () => {
    expect(parseWebhookUrl('HTTPS://Example.COM:443/a?b=1').href).toBe('https://example.com/a?b=1');
    for (const bad of ['javascript:alert(1)', 'file:///etc/passwd', 'ws://example.com', 'http://', 'example.com/hook', 'http://a:b@example.com']) {
      expect(() => parseWebhookUrl(bad), bad).toThrow(WebhookUrlError);
    }
  });

  it('skips the address checks (and DNS) when private targets are allowed', async () => {
    await expect(checkWebhookUrl('http://127.0.0.1:1/x', true)).resolves.toBe('http://127.0.0.1:1/x');
    await expect(checkWebhookUrl('http://no-such-host.invalid/x', true)).resolves.toBe('http://no-such-host.invalid/x');
    await expect(checkWebhookUrl('ftp://127.0.0.1/x', true)).rejects.toThrow(WebhookUrlError);
  });

  it('refuses a name that resolves to loopback', async () => {
    await expect(checkWebhookUrl('http://localhost/x', false)).rejects.toThrow(/non-public/);
  });

  it('fails a connection lookup of a name that resolves to loopback', async () => {
    const err = await new Promise<unknown>((resolve) => {
      publicOnlyLookup('localhost', { all: true }, (e) => resolve(e));
    });
    expect(err).toMatchObject({ code: 'EREFUSEDTARGET' });
  });
});

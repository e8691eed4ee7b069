import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { parseNetworkList } from '../../src/domain/ip-networks.js';
import { validateWebhookUrl } from '../../src/domain/webhook-url.js';
import { SsrfRefusedError, assertLiteralAllowed, guardedLookup } from '../../src/net/ssrf-guard.js';

/** A resolver that answers from a table, as a hostile or rebinding DNS server might. */
const fakeDns = (table: Record<string, LookupAddress[]>) =>
  ((
    hostname: string,
    _options: unknown,
    callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
  ) => {
    const answer = table[hostname];
    if (!answer)
      return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
    callback(null, answer);
  }) as Parameters<typeof guardedLookup>[1];

const resolve = (lookup: ReturnType<typeof guardedLookup>, host: string, all: boolean) =>
  new Promise<{ err: Error | null; address: unknown; family?: number }>((done) =>
    lookup(host, { all }, (err, address, family) =>
      done({ err, address, ...(family === undefined ? {} : { family }) }),
    ),
  );

const dns = fakeDns({
  'public.test': [{ address: '93.184.216.34', family: 4 }],
  'rebind.test': [{ address: '127.0.0.1', family: 4 }],
  'metadata.test': [{ address: '169.254.169.254', family: 4 }],
  'mapped.test': [{ address: '::ffff:10.1.2.3', family: 6 }],
  'mixed.test': [
    { address: '10.0.0.7', family: 4 },
    { address: '2606:4700::1111', family: 6 },
  ],
  'v6local.test': [
    { address: '::1', family: 6 },
    { address: 'fd00::1', family: 6 },
  ],
});

describe('guardedLookup (the connect-time check)', () => {
  it('passes public addresses through, in both callback shapes', async () => {
    const lookup = guardedLookup([], dns);
    expect(await resolve(lookup, 'public.test', false)).toEqual({ err: null, address: '93.184.216.34', family: 4 });
    expect(await resolve(lookup, 'public.test', true)).toEqual({
      err: null,
      address: [{ address: '93.184.216.34', family: 4 }],
    });
  });

  it.each([
    ['rebind.test', /rebind\.test \(127\.0\.0\.1\) is loopback/],
    ['metadata.test', /169\.254\.169\.254\) is link-local/],
    ['mapped.test', /is private/],
    ['v6local.test', /::1\) is loopback/],
  ])('refuses %s with a clear error', async (host, message) => {
    const result = await resolve(guardedLookup([], dns), host, true);
    expect(result.err).toBeInstanceOf(SsrfRefusedError);
    expect(result.err!.message).toMatch(message);
    expect(result.err!.message).toContain('WEBHOOK_ALLOW_NETWORKS');
  });

  it('drops refused addresses and keeps the public ones of a mixed answer', async () => {
    expect(await resolve(guardedLookup([], dns), 'mixed.test', true)).toEqual({
      err: null,
      address: [{ address: '2606:4700::1111', family: 6 }],
    });
    expect(await resolve(guardedLookup([], dns), 'mixed.test', false)).toEqual({
      err: null,
      address: '2606:4700::1111',
      family: 6,
    });
  });

  it('lets the operator allow-list through', async () => {
    const lookup = guardedLookup(parseNetworkList('127.0.0.0/8,10.0.0.0/8'), dns);
    expect((await resolve(lookup, 'rebind.test', false)).address).toBe('127.0.0.1');
    expect((await resolve(lookup, 'mapped.test', false)).address).toBe('::ffff:10.1.2.3');
    expect((await resolve(lookup, 'metadata.test', false)).err).toBeInstanceOf(SsrfRefusedError);
  });

  it('passes resolver errors on unchanged', async () => {
    const result = await resolve(guardedLookup([], dns), 'nowhere.test', false);
    expect((result.err as NodeJS.ErrnoException).code).toBe('ENOTFOUND');
  });
});

describe('assertLiteralAllowed (IP literals connect without a lookup)', () => {
  it('refuses literal loopback, metadata and IPv6 forms; names pass to the lookup check', () => {
    for (const host of ['127.0.0.1', '169.254.169.254', '[::1]', '[::ffff:7f00:1]', '0.0.0.0', '[fe80::1]']) {
      expect(() => assertLiteralAllowed(host, [])).toThrow(SsrfRefusedError);
    }
    expect(() => assertLiteralAllowed('8.8.8.8', [])).not.toThrow();
    expect(() => assertLiteralAllowed('example.com', [])).not.toThrow();
    expect(() => assertLiteralAllowed('127.0.0.1', parseNetworkList('127.0.0.0/8'))).not.toThrow();
  });
});

describe('validateWebhookUrl (checked when an endpoint is added)', () => {
  const ok = (url: string, allow = '') => validateWebhookUrl(url, parseNetworkList(allow));
  it('accepts public http(s) URLs and returns them canonical', () => {
    expect(ok('https://shop.example.com/hooks/qris?x=1')).toBe('https://shop.example.com/hooks/qris?x=1');
    expect(ok('HTTP://Shop.Example.com')).toBe('http://shop.example.com/');
    expect(ok('http://8.8.8.8:8080/h')).toBe('http://8.8.8.8:8080/h');
  });
  it.each([
    ['ftp://example.com/', /http or https/],
    ['javascript:alert(1)', /http or https/],
    ['file:///etc/passwd', /http or https/],
    ['/relative', /valid absolute URL/],
    ['https://user:pass@example.com/', /user name or password/],
    ['https://user@example.com/', /user name or password/],
    [`https://example.com/${'a'.repeat(2048)}`, /at most 2048/],
    ['http://127.0.0.1:3000/hook', /127\.0\.0\.1, which is loopback/],
    ['http://0x7f.1/hook', /loopback/],
    ['http://2130706433/hook', /loopback/],
    ['http://169.254.169.254/latest/meta-data/', /link-local/],
    ['http://[::1]/', /loopback/],
    ['http://[::ffff:127.0.0.1]/', /loopback/],
    ['http://10.0.0.5/', /private/],
    ['http://192.168.1.1/', /private/],
    ['http://localhost:8080/', /loopback/],
    ['http://api.localhost/', /loopback/],
  ])('refuses %s', (url, message) => {
    expect(() => ok(url)).toThrow(message);
  });
  it('accepts refused literals inside the allow-list', () => {
    expect(ok('http://127.0.0.1:3000/hook', '127.0.0.0/8')).toBe('http://127.0.0.1:3000/hook');
    expect(ok('http://localhost:3000/hook', '127.0.0.0/8')).toBe('http://localhost:3000/hook');
    expect(() => ok('http://169.254.169.254/', '127.0.0.0/8')).toThrow(/link-local/);
  });
});

describe('webhook settings', () => {
  it('default to a 10 s timeout, a 1 s poll and no allowed networks', () => {
    const c = loadConfig({});
    expect([c.webhookTimeoutMs, c.webhookDispatchIntervalMs, c.webhookAllowNetworks]).toEqual([10_000, 1000, []]);
  });
  it('parse WEBHOOK_ALLOW_NETWORKS strictly, naming the variable', () => {
    expect(
      loadConfig({ WEBHOOK_ALLOW_NETWORKS: '127.0.0.0/8, ::1/128' }).webhookAllowNetworks.map((n) => n.text),
    ).toEqual(['127.0.0.0/8', '::1/128']);
    expect(() => loadConfig({ WEBHOOK_ALLOW_NETWORKS: '127.0.0.1/8' })).toThrow(
      /^WEBHOOK_ALLOW_NETWORKS: .*host bits set/,
    );
    expect(() => loadConfig({ WEBHOOK_ALLOW_NETWORKS: 'localhost' })).toThrow(/WEBHOOK_ALLOW_NETWORKS/);
    expect(() => loadConfig({ WEBHOOK_TIMEOUT_MS: '10s' })).toThrow(/WEBHOOK_TIMEOUT_MS/);
    expect(() => loadConfig({ WEBHOOK_DISPATCH_INTERVAL_MS: '0' })).toThrow(/WEBHOOK_DISPATCH_INTERVAL_MS/);
  });
});

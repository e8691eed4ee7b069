// issue 23, finding 4: TRUST_PROXY names proxy hops or the proxies' addresses; `true` is one hop.
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { parseProxyTrust, proxyTrustFunction, type ProxyTrust } from '../../src/domain/proxy-trust.js';

describe('TRUST_PROXY parsing', () => {
  it.each([
    [undefined, { hops: 0 }],
    ['', { hops: 0 }],
    ['false', { hops: 0 }],
    ['OFF', { hops: 0 }],
    ['0', { hops: 0 }],
    ['true', { hops: 1 }],
    ['True', { hops: 1 }],
    ['yes', { hops: 1 }],
    ['1', { hops: 1 }],
    ['2', { hops: 2 }],
    ['10', { hops: 10 }],
  ])('%j is %j', (raw, expected) => {
    expect(parseProxyTrust(raw)).toEqual(expected);
  });

  it('reads addresses and CIDRs, comma-separated', () => {
    const trust = parseProxyTrust('127.0.0.1, 10.0.0.0/8,::1,fd00::/8');
    expect('networks' in trust && trust.networks.map((n) => n.text)).toEqual([
      '127.0.0.1/32',
      '10.0.0.0/8',
      '::1/128',
      'fd00::/8',
    ]);
  });

  it.each([
    'maybe',
    '-1',
    '1.5',
    '01',
    '11',
    '999999999999',
    '10.0.0.1/8',
    '10.0.0.0/33',
    '127.0.0.1,',
    'loopback',
    '1,2',
    'true,127.0.0.1',
  ])('refuses %j at start-up', (raw) => {
    expect(() => parseProxyTrust(raw)).toThrow(/^TRUST_PROXY must be/);
  });
});

describe('the client address Fastify reads with it', () => {
  /** request.ip for a request from `peer` carrying this X-Forwarded-For. */
  async function clientOf(trust: ProxyTrust, peer: string, forwardedFor?: string): Promise<string> {
    const app = Fastify({ trustProxy: proxyTrustFunction(trust) });
    app.get('/', (request) => ({ ip: request.ip }));
    try {
      const res = await app.inject({
        url: '/',
        remoteAddress: peer,
        headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
      });
      return (res.json() as { ip: string }).ip;
    } finally {
      await app.close();
    }
  }

  it('with no trust, the socket peer whatever the header says', async () => {
    expect(await clientOf({ hops: 0 }, '198.51.100.1', '203.0.113.9')).toBe('198.51.100.1');
    expect(await clientOf({ networks: [] }, '198.51.100.1', '203.0.113.9')).toBe('198.51.100.1');
  });

  it('with one hop, the entry the proxy appended, never one the client wrote', async () => {
    // The client sent "1.1.1.1, 2.2.2.2"; nginx appended the address it saw (203.0.113.9).
    expect(await clientOf({ hops: 1 }, '127.0.0.1', '1.1.1.1, 2.2.2.2, 203.0.113.9')).toBe('203.0.113.9');
    expect(await clientOf({ hops: 1 }, '127.0.0.1', '203.0.113.9')).toBe('203.0.113.9');
    // No header (a request that did not come through the proxy): the peer.
    expect(await clientOf({ hops: 1 }, '127.0.0.1')).toBe('127.0.0.1');
  });

  it('with two hops, the entry the outer proxy appended', async () => {
    // Client -> CDN (appends 203.0.113.9) -> nginx (appends the CDN's 192.0.2.50) -> gateway.
    expect(await clientOf({ hops: 2 }, '127.0.0.1', '6.6.6.6, 203.0.113.9, 192.0.2.50')).toBe('203.0.113.9');
  });

  it('with addresses, every hop from a listed proxy and the first other address', async () => {
    const trust = parseProxyTrust('127.0.0.1,10.0.0.0/8');
    expect(await clientOf(trust, '127.0.0.1', '6.6.6.6, 203.0.113.9, 10.1.2.3')).toBe('203.0.113.9');
    expect(await clientOf(trust, '::ffff:127.0.0.1', '6.6.6.6, 203.0.113.9')).toBe('203.0.113.9');
    // A peer that is not a listed proxy is the client itself, whatever it forwards.
    expect(await clientOf(trust, '198.51.100.1', '10.0.0.7')).toBe('198.51.100.1');
    // A client that writes a listed proxy's address gains nothing: the walk stops at its real address.
    expect(await clientOf(trust, '127.0.0.1', '10.0.0.7, 203.0.113.9')).toBe('203.0.113.9');
  });
});

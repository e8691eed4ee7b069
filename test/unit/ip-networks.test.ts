import { describe, expect, it } from 'vitest';
import {
  classifyAddress,
  formatIp,
  networkContains,
  parseCidr,
  parseIp,
  parseNetworkList,
  refusalReason,
} from '../../src/domain/ip-networks.js';

const ip = (text: string) => {
  const parsed = parseIp(text);
  if (!parsed) throw new Error(`test address ${text} did not parse`);
  return parsed;
};

describe('parseIp', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['0.0.0.0', '0.0.0.0'],
    ['255.255.255.255', '255.255.255.255'],
    ['::', '::'],
    ['::1', '::1'],
    ['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
    ['fe80::1:0:0:1', 'fe80::1:0:0:1'],
    ['::ffff:127.0.0.1', '::ffff:7f00:1'],
    ['1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8'],
    ['1::', '1::'],
    ['1:0:0:2:0:0:0:3', '1:0:0:2::3'],
  ])('%s reads as %s', (text, canonical) => {
    expect(formatIp(ip(text))).toBe(canonical);
  });

  it.each([
    '',
    '1.2.3',
    '1.2.3.4.5',
    '256.0.0.1',
    '01.2.3.4',
    '1.2.3.04',
    '0x7f.0.0.1',
    '127.1',
    ' 1.2.3.4',
    '1.2.3.-4',
    '1.2.3.4 ',
    ':::',
    '1:::2',
    ':1::2',
    '1::2::3',
    '1:2:3:4:5:6:7:8:9',
    '1:2:3:4:5:6:7',
    '1:2:3:4:5:6:7::8',
    '12345::',
    'g::1',
    'fe80::1%eth0',
    '[::1]',
    '1.2.3.4::',
    '::1.2.3',
    '::256.1.1.1',
    'localhost',
  ])('refuses %j', (text) => {
    expect(parseIp(text)).toBeNull();
  });
});

describe('parseCidr and parseNetworkList', () => {
  it('parses IPv4 and IPv6 networks to canonical form', () => {
    expect(parseCidr('127.0.0.0/8').text).toBe('127.0.0.0/8');
    expect(parseCidr(' 10.1.0.0/16 ').text).toBe('10.1.0.0/16');
    expect(parseCidr('0.0.0.0/0').text).toBe('0.0.0.0/0');
    expect(parseCidr('FD00::/8').text).toBe('fd00::/8');
    expect(parseCidr('::1/128').text).toBe('::1/128');
    expect(parseCidr('::/0').text).toBe('::/0');
  });

  it('reads a bare address as a single host', () => {
    expect(parseCidr('192.168.1.10').text).toBe('192.168.1.10/32');
    expect(parseCidr('::1').text).toBe('::1/128');
  });

  it.each([
    ['127.0.0.1/8', /host bits set; did you mean 127\.0\.0\.0\/8/],
    ['10.0.0.0/33', /prefix/],
    ['10.0.0.0/-1', /prefix/],
    ['10.0.0.0/08', /prefix/],
    ['10.0.0.0/', /prefix/],
    ['10.0.0.0/8/8', /prefix/],
    ['::/129', /prefix/],
    ['fe80::1/10', /host bits/],
    ['localhost/8', /not an IPv4 or IPv6 network/],
    ['10.0.0/8', /not an IPv4 or IPv6 network/],
    ['', /not an IPv4 or IPv6 network/],
  ])('refuses %j', (text, message) => {
    expect(() => parseCidr(text)).toThrow(message);
  });

  it('splits a comma-separated list and refuses empty entries', () => {
    expect(parseNetworkList('').map((n) => n.text)).toEqual([]);
    expect(parseNetworkList('  ').map((n) => n.text)).toEqual([]);
    expect(parseNetworkList('127.0.0.0/8, ::1/128,10.0.0.0/8').map((n) => n.text)).toEqual([
      '127.0.0.0/8',
      '::1/128',
      '10.0.0.0/8',
    ]);
    expect(() => parseNetworkList('127.0.0.0/8,')).toThrow(/empty entry/);
    expect(() => parseNetworkList('127.0.0.0/8,,10.0.0.0/8')).toThrow(/empty entry/);
  });

  it('matches addresses of the same family only', () => {
    const loopback = parseCidr('127.0.0.0/8');
    expect(networkContains(loopback, ip('127.255.0.1'))).toBe(true);
    expect(networkContains(loopback, ip('128.0.0.1'))).toBe(false);
    expect(networkContains(loopback, ip('::1'))).toBe(false);
    expect(networkContains(parseCidr('0.0.0.0/0'), ip('8.8.8.8'))).toBe(true);
    expect(networkContains(parseCidr('2001:db8::/32'), ip('2001:db8:ffff::1'))).toBe(true);
    expect(networkContains(parseCidr('2001:db8::/32'), ip('2001:db9::1'))).toBe(false);
  });
});

describe('classifyAddress: what a webhook may not reach', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['169.254.169.254', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'unique local'],
    ['fd12:3456::1', 'unique local'],
    ['fe80::1', 'link-local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:10.0.0.1', 'private'],
    ['::127.0.0.1', 'reserved'],
    ['64:ff9b::7f00:1', 'loopback, embedded as 127.0.0.1'],
    ['2002:a00:1::', 'private, embedded as 10.0.0.1'],
  ])('%s is refused (%s)', (text, why) => {
    expect(classifyAddress(ip(text))).toContain(why);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '172.15.255.255',
    '100.128.0.1',
    '169.255.0.1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
  ])('%s is public', (text) => {
    expect(classifyAddress(ip(text))).toBeNull();
  });

  it('the allow-list permits exactly what it names, IPv4-mapped forms included', () => {
    const allow = parseNetworkList('127.0.0.0/8,fd00::/8');
    expect(refusalReason(ip('127.0.0.1'), allow)).toBeNull();
    expect(refusalReason(ip('::ffff:127.0.0.1'), allow)).toBeNull();
    expect(refusalReason(ip('fd00::5'), allow)).toBeNull();
    expect(refusalReason(ip('::1'), allow)).toBe('loopback');
    expect(refusalReason(ip('169.254.169.254'), allow)).toContain('link-local');
    expect(refusalReason(ip('10.0.0.1'), allow)).toBe('private');
    expect(refusalReason(ip('8.8.8.8'), [])).toBeNull();
  });
});

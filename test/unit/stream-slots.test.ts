import { describe, expect, it } from 'vitest';
import { clientAddressKey } from '../../src/domain/client-address.js';
import { AppError } from '../../src/domain/errors.js';
import { StreamSlots } from '../../src/web/stream-slots.js';

function refusal(fn: () => unknown): { code: string; retryAfter: number | undefined } {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return { code: (err as AppError).code, retryAfter: (err as AppError).retryAfter };
  }
  throw new Error('expected a refusal');
}

describe('stream slots', () => {
  it('refuses beyond each limit and counts a released slot once', () => {
    const slots = new StreamSlots({ perAddress: 2, perTransaction: 3, total: 4 });
    const a1 = slots.take('a', 't1');
    slots.take('a', 't2');
    expect(refusal(() => slots.take('a', 't3'))).toEqual({ code: 'too_many_streams', retryAfter: 30 });
    slots.take('b', 't1');
    slots.take('c', 't1');
    expect(refusal(() => slots.take('d', 't1'))).toEqual({ code: 'too_many_streams', retryAfter: 30 });
    expect(slots.open).toBe(4);
    expect(refusal(() => slots.take('d', 't9'))).toEqual({ code: 'streams_at_capacity', retryAfter: 30 });

    a1.release();
    a1.release();
    expect(slots.open).toBe(3);
    slots.take('a', 't3');
    expect(refusal(() => slots.take('e', 't8')).code).toBe('streams_at_capacity');
  });
});

describe('client address key', () => {
  it('counts IPv4 per address, IPv4-mapped IPv6 as IPv4, and IPv6 per /64', () => {
    expect(clientAddressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(clientAddressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientAddressKey('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(clientAddressKey('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(clientAddressKey('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(clientAddressKey('::1')).toBe('::/64');
    expect(clientAddressKey('not an address')).toBe('not an address');
  });
});

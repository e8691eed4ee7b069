import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import {
  handleFromPath,
  handleProblem,
  parseHandle,
  paymentLinkUrl,
  replayBucket,
  RESERVED_HANDLES,
} from '../../src/domain/payment-link.js';
import { loadConfig } from '../../src/config.js';
import { typedAmount } from '../../src/web/payment-links.js';

describe('payment-link handles', () => {
  it('takes 3 to 32 of a-z, 0-9 and "-", starting with a letter or a digit', () => {
    for (const ok of ['abc', 'warung-saya', '7eleven', 'a-b', 'x'.repeat(32), 'toko--99', 'ends-'])
      expect(handleProblem(ok), ok).toBeNull();
    expect(handleProblem('ab')).toBe('length');
    expect(handleProblem('x'.repeat(33))).toBe('length');
    expect(handleProblem('')).toBe('length');
    expect(handleProblem('-abc')).toBe('start');
    for (const bad of ['warung saya', 'warung_saya', 'toko.id', 'café', 'abc/def', 'a%2fb'])
      expect(handleProblem(bad), bad).toBe('characters');
  });

  it('refuses the reserved words', () => {
    for (const word of [
      'admin',
      'api',
      'dashboard',
      'pay',
      'checkout',
      'docs',
      'static',
      'assets',
      'login',
      'signup',
    ]) {
      expect(RESERVED_HANDLES.has(word)).toBe(true);
      expect(handleProblem(word)).toBe('reserved');
    }
    expect(() => parseHandle('Admin')).toThrow(/reserved/);
  });

  it('stores what was typed trimmed and lower-case, and names the parameter when it refuses', () => {
    expect(parseHandle('  Warung-Saya ')).toBe('warung-saya');
    try {
      parseHandle('no way');
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe('invalid_parameter');
      expect((err as AppError).param).toBe('handle');
    }
  });

  it('reads a handle in a URL without regard to case; a malformed one is no handle', () => {
    expect(handleFromPath('Warung-Saya')).toBe('warung-saya');
    expect(handleFromPath('api')).toBeNull();
    expect(handleFromPath('a b')).toBeNull();
  });

  it('puts ten minutes in one replay window', () => {
    const start = 1_800_000_000_000 - (1_800_000_000_000 % 600_000);
    expect(replayBucket(start)).toBe(replayBucket(start + 599_999));
    expect(replayBucket(start + 600_000)).toBe(replayBucket(start) + 1);
    expect(paymentLinkUrl('https://pay.example', 'toko', 25000)).toBe('https://pay.example/pay/toko/25000');
  });
});

describe('amounts typed into the payment form', () => {
  it('reads thousands separators as Indonesians and others write them, and leaves the rest to the parser', () => {
    expect(typedAmount('25.000')).toBe('25000');
    expect(typedAmount('Rp 25.000')).toBe('25000');
    expect(typedAmount('rp25,000')).toBe('25000');
    expect(typedAmount(' 1.500.000 ')).toBe('1500000');
    expect(typedAmount('25 000')).toBe('25000');
    // Ambiguous or mixed: passed on as typed, for parseAmount to explain.
    expect(typedAmount('25.00')).toBe('25.00');
    expect(typedAmount('1.500,000')).toBe('1.500,000');
    expect(typedAmount('25.5')).toBe('25.5');
    expect(typedAmount(['1'])).toEqual(['1']);
  });
});

describe('PAYMENT_LINK_CREATES_PER_MINUTE', () => {
  it('defaults to 10, allows 0 (no limit), and refuses anything but a whole number', () => {
    expect(loadConfig({}).paymentLinkCreatesPerMinute).toBe(10);
    expect(loadConfig({ PAYMENT_LINK_CREATES_PER_MINUTE: '0' }).paymentLinkCreatesPerMinute).toBe(0);
    expect(loadConfig({ PAYMENT_LINK_CREATES_PER_MINUTE: '30' }).paymentLinkCreatesPerMinute).toBe(30);
    for (const bad of ['ten', '1.5', '-1', ' 5'])
      expect(() => loadConfig({ PAYMENT_LINK_CREATES_PER_MINUTE: bad })).toThrow(/PAYMENT_LINK_CREATES_PER_MINUTE/);
  });
});

// issue 23, finding 7: a merchant's name reaches payers in the gateway's own mail, so it carries no link
// and no address.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import {
  MERCHANT_NAME_MAX,
  merchantNameProblem,
  parseMerchantName,
  payerMerchantName,
} from '../../src/domain/merchant-name.js';
import { address, disguise } from '../helpers/link-arbitraries.js';

// Plain words of names as merchants write them: letters (Latin and others), digits, and a few signs.
const word = fc.stringMatching(/^[A-Za-zÀ-ÿ0-9&'()+-]{1,12}$/);
const otherScript = fc.constantFrom('ร้านกาแฟ', 'کافه', '咖啡店', 'Кофе', 'कॉफ़ी');
// A full stop is followed by a space, as in "CV. Sinar" or "No. 1"; a number may have one inside ("2.0").
const plainName = fc
  .array(
    fc.oneof(
      word,
      otherScript,
      word.map((w) => `${w}.`),
      fc.constantFrom('No. 1', '2.0', 'Rp.5000', '@', '24/7', 'Jl. Sudirman'),
    ),
    { minLength: 1, maxLength: 8 },
  )
  .map((parts) => parts.join(' ').slice(0, MERCHANT_NAME_MAX).trim())
  .filter((name) => name.length > 0);

describe('merchant names (issue 23, finding 7)', () => {
  it('keeps plain names as typed (trimmed), whatever their words and scripts', () => {
    fc.assert(
      fc.property(plainName, (name) => {
        expect(merchantNameProblem(name), name).toBeNull();
        expect(parseMerchantName(`  ${name} `)).toBe(name);
      }),
      { numRuns: 2000 },
    );
    for (const ok of [
      'Warung Saya',
      'Toko Jaya 2.0',
      'PT. Maju Mundur',
      'Kopi @ Senayan',
      'Apotek K-24',
      'Bakso No. 1',
      '7-Eleven',
    ]) {
      expect(merchantNameProblem(ok), ok).toBeNull();
    }
  });

  it('refuses a link or an address anywhere in the name, however it is spelled', () => {
    fc.assert(
      fc.property(plainName, address, disguise, plainName, (before, link, hide, after) => {
        const name = `${before.slice(0, 30)} ${hide(link)} ${after.slice(0, 20)}`.trim();
        fc.pre(name.length <= MERCHANT_NAME_MAX);
        expect(merchantNameProblem(name), name).toBe('link');
      }),
      { numRuns: 2000 },
    );
  });

  it("refuses the review's name, and says why", () => {
    const phishing = 'PERINGATAN: rekening Anda DIBLOKIR. Pulihkan di http://bank-pulih.example';
    expect(merchantNameProblem(phishing)).toBe('link');
    for (const bad of [
      'Pulihkan di example.com',
      'cs@bank.example',
      'www.toko',
      'Toko 10.0.0.1',
      'hubungi admin@localhost',
      'CV.Sinar',
    ]) {
      expect(merchantNameProblem(bad), bad).toBe('link');
    }
    try {
      parseMerchantName(phishing);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe('invalid_parameter');
      expect((err as AppError).param).toBe('name');
      expect((err as AppError).message).toMatch(/link or an address/);
    }
  });

  it('refuses empty, over-long and control characters', () => {
    expect(merchantNameProblem('')).toBe('length');
    expect(merchantNameProblem('x'.repeat(MERCHANT_NAME_MAX + 1))).toBe('length');
    expect(merchantNameProblem('x'.repeat(MERCHANT_NAME_MAX))).toBeNull();
    expect(merchantNameProblem('Toko\nBaru')).toBe('control');
    expect(() => parseMerchantName('   ')).toThrow(/1 to 100/);
  });

  it("payers read the QRIS's name, unless it reads as a link or an address (then the gateway's checked name)", () => {
    expect(payerMerchantName({ qrisName: 'WARUNG BU SITI', name: 'Warung Siti (Cabang 2)' })).toBe('WARUNG BU SITI');
    expect(payerMerchantName({ qrisName: ' TOKO MAJU ', name: 'Toko Maju' })).toBe('TOKO MAJU');
    expect(payerMerchantName({ qrisName: 'PAY AT EVIL.COM', name: 'Toko Maju' })).toBe('Toko Maju');
    expect(payerMerchantName({ qrisName: 'CV.SINAR', name: 'CV. Sinar' })).toBe('CV. Sinar');
  });
});

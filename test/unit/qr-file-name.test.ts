import { describe, expect, it } from 'vitest';
import { qrFileName } from '../../src/web/qr-file-name.js';

describe('the saved QR file name', () => {
  it('names the merchant and the total with safe characters only', () => {
    expect(qrFileName('Warung Contoh', 25_123)).toBe('qris-warung-contoh-25123.png');
    expect(qrFileName('Kopi Café & Co.', 10_001)).toBe('qris-kopi-cafe-co-10001.png');
    expect(qrFileName('../../etc/passwd', 1)).toBe('qris-etc-passwd-1.png');
    expect(qrFileName('"><script>', 2)).toBe('qris-script-2.png');
  });

  it('keeps a long name short and never ends it with a dash; a name of no safe letters becomes "merchant"', () => {
    const long = qrFileName(`${'a'.repeat(39)} bbbb`, 5);
    expect(long).toBe(`qris-${'a'.repeat(39)}-5.png`);
    expect(qrFileName('東京 ☕', 7)).toBe('qris-merchant-7.png');
  });
});

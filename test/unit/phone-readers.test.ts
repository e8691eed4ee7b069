// issue 36, section 1: the phone kind's readers against the apps' real wording (test/fixtures/phone, copied
// from public bridges), and every amount in every spelling the apps use.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RUPIAH, rupiahValue } from '../../src/payment-sources/phone/readers/amount.js';
import { type RupiahSpelling, writeRupiah } from '../helpers/rupiah.js';
import { readNotification, readers } from '../../src/payment-sources/phone/readers/index.js';
import { MAX_QRIS_AMOUNT } from '../../src/domain/money.js';

interface Fixture {
  app: string | null;
  title: string;
  text: string;
  expect?: Array<{ amount: number; transactionId: string | null }>;
  reason?: string;
}
const fixtures = JSON.parse(readFileSync(new URL('../fixtures/phone/notifications.json', import.meta.url), 'utf8')) as {
  payments: Fixture[];
  ignored: Fixture[];
};
const MAX = MAX_QRIS_AMOUNT;

describe('phone notification readers', () => {
  it.each(fixtures.payments)('reads $text', (f) => {
    const reading = readNotification({ app: f.app, title: f.title, text: f.text }, MAX);
    expect(
      'payments' in reading
        ? reading.payments.map(({ amount, transactionId }) => ({ amount, transactionId }))
        : reading,
    ).toEqual(f.expect);
  });

  it.each(fixtures.ignored)('pays nothing for $text ($reason)', (f) => {
    const reading = readNotification({ app: f.app, title: f.title, text: f.text }, MAX);
    expect(reading).toMatchObject({ ignored: f.reason });
  });

  it('an amount over the largest total is unreadable, not a payment', () => {
    expect(
      readNotification(
        { app: 'id.dana', title: '', text: 'Kamu berhasil menerima Rp10001 via Gopay ke akunmu. Cek yuk!' },
        10_000,
      ),
    ).toMatchObject({
      ignored: 'unreadable',
    });
  });

  it('each reader reads back what its own app writes, for any amount and id', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...readers),
        fc.integer({ min: 1, max: MAX }),
        fc.stringMatching(/^[0-9A-Za-z]{8}$/),
        (reader, amount, id) => {
          const { title, text } = reader.example(amount, id);
          const reading = readNotification({ app: reader.packages[0] ?? null, title, text }, MAX);
          expect(reading.reader?.name).toBe(reader.name);
          expect('payments' in reading && reading.payments.map((p) => p.amount)).toEqual([amount]);
        },
      ),
    );
  });
});

describe('rupiah amounts as the apps write them', () => {
  const pattern = new RegExp(`^${RUPIAH}$`);
  const spellings: RupiahSpelling[] = ['dotted', 'plain', 'spaced', 'cents'];

  it('the spellings seen', () => {
    expect(writeRupiah(1000, 'dotted')).toBe('Rp1.000');
    expect(writeRupiah(10000, 'plain')).toBe('Rp10000');
    expect(writeRupiah(25500, 'spaced')).toBe('Rp 25.500');
    expect(writeRupiah(150000, 'cents')).toBe('Rp 150.000,00');
  });

  it('any amount from 1 to AMOUNT_MAX, in each spelling, parses back', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX }), fc.constantFrom(...spellings), (amount, spelling) => {
        const m = pattern.exec(writeRupiah(amount, spelling));
        expect(m).not.toBeNull();
        expect(rupiahValue(m![1]!, m![2], MAX)).toBe(amount);
      }),
    );
  });

  it('in each reader, any amount in each spelling reads back', () => {
    const texts: Record<string, (amount: string) => string> = {
      gopay: (a) => `${a} berhasil diterima. ID transaksi: 40tc6WND`,
      dana: (a) => `Kamu berhasil menerima ${a} via Gopay ke akunmu. Cek yuk!`,
      nobu: (a) => `Pembayaran QRIS diterima, ${a} akan dikreditkan ke Tabungan Reguler kamu 5859********8988`,
    };
    fc.assert(
      fc.property(
        fc.constantFrom(...readers),
        fc.integer({ min: 1, max: MAX }),
        fc.constantFrom(...spellings),
        (reader, amount, spelling) => {
          const reading = readNotification(
            { app: null, title: '', text: texts[reader.name]!(writeRupiah(amount, spelling)) },
            MAX,
          );
          expect('payments' in reading && reading.payments[0]!.amount).toBe(amount);
        },
      ),
    );
  });

  it('cents that are not zero, zero and ambiguous separators are not amounts', () => {
    for (const text of ['Rp1.000,50', 'Rp0', 'Rp1.00', 'Rp1,000']) {
      const m = pattern.exec(text);
      expect(m === null || rupiahValue(m[1]!, m[2], MAX) === null, text).toBe(true);
    }
  });
});

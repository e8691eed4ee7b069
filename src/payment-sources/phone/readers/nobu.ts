import { formatRupiah } from '../../../domain/money.js';
import { RUPIAH, rupiahValue } from './amount.js';
import type { Reader } from './reader.js';

// Bank Nobu, seen in an open-source Nobu QRIS checker: `Pembayaran QRIS diterima, Rp114 akan dikreditkan
// ke Tabungan Reguler kamu 5859********8988`. No payment id in the text.
const RECEIVED = new RegExp(`^\\s*Pembayaran QRIS diterima, ${RUPIAH} akan dikreditkan ke `);

export const nobu: Reader = {
  name: 'nobu',
  // Its Android package was not confirmed in a public source: its posts are read by trying every reader.
  packages: [],
  read(notification, max) {
    const m = RECEIVED.exec(notification.text);
    if (!m) return null;
    const amount = rupiahValue(m[1]!, m[2], max);
    return amount === null ? null : [{ amount, transactionId: null, line: notification.text.trim() }];
  },
  example: (amount) => ({
    title: 'Nobu',
    text: `Pembayaran QRIS diterima, ${formatRupiah(amount)} akan dikreditkan ke Tabungan Reguler kamu 5859********8988`,
  }),
};

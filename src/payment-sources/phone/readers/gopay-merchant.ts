import { formatRupiah } from '../../../domain/money.js';
import { RUPIAH, rupiahValue } from './amount.js';
import type { ReadPayment, Reader } from './reader.js';

// GoPay Merchant / GoBiz (and the GoPay customer app on the same phone, which can show the merchant's own
// text: its copy carries the same `ID transaksi`, so it is the same payment). Seen in open-source GoPay
// notification bridges and their tests: title `Pembayaran QRIS diterima!`, text
// `Rp1.000 berhasil diterima. ID transaksi: 40tc6WND`; several payments close together are one grouped
// notification, one such line each.
const LINE = new RegExp(`^\\s*${RUPIAH} berhasil diterima\\.? ?ID transaksi: ?([0-9A-Za-z]{4,64})\\s*$`);

export const gopayMerchant: Reader = {
  name: 'gopay',
  packages: ['com.gojek.gopaymerchant', 'com.gojek.resto', 'com.gojek.gopay'],
  read(notification, max) {
    const payments: ReadPayment[] = [];
    for (const line of notification.text.split(/\r?\n/)) {
      if (line.trim() === '') continue;
      const m = LINE.exec(line);
      if (!m) return null;
      const amount = rupiahValue(m[1]!, m[2], max);
      if (amount === null) return null;
      payments.push({ amount, transactionId: m[3]!, line: line.trim() });
    }
    return payments.length > 0 ? payments : null;
  },
  example: (amount, transactionId) => ({
    title: 'Pembayaran QRIS diterima!',
    text: `${formatRupiah(amount)} berhasil diterima. ID transaksi: ${transactionId}`,
  }),
};

// The words of the daily report e-mail (daily-report-mail.ts), in both languages.
import { defineMessages } from '../presentation/messages.js';

export const words = defineMessages(
  {
    heading: 'Daily report',
    intro: 'The figures of {day} (WIB) for {merchant}:',
    received: 'Received (every payment)',
    paid: 'Payments of paid transactions',
    paidSum: 'Paid amount',
    receivedOpen: 'On open transactions (part payments)',
    returned: 'Double payments returned',
    refunded: 'Refunded (succeeded refunds)',
    unmatched: 'Unmatched payments',
    unmatchedSum: 'Unmatched amount',
    bySource: 'By payment source',
    note: 'You get this e-mail because the daily report is on for this merchant in the console.',
    subject: 'Daily report {day} · {merchant}: {count} paid, {sum}',
  },
  {
    heading: 'Laporan harian',
    intro: 'Angka hari {day} (WIB) untuk {merchant}:',
    received: 'Diterima (semua pembayaran)',
    paid: 'Pembayaran transaksi lunas',
    paidSum: 'Nominal lunas',
    receivedOpen: 'Di transaksi terbuka (pembayaran sebagian)',
    returned: 'Pembayaran ganda dikembalikan',
    refunded: 'Dikembalikan (refund berhasil)',
    unmatched: 'Pembayaran tak cocok',
    unmatchedSum: 'Jumlah tak cocok',
    bySource: 'Per sumber pembayaran',
    note: 'Anda menerima e-mail ini karena laporan harian diaktifkan untuk merchant ini di konsol.',
    subject: 'Laporan harian {day} · {merchant}: {count} lunas, {sum}',
  },
);

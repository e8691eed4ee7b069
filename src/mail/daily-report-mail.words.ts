// The words of the daily report e-mail (daily-report-mail.ts), in both languages.
import { defineMessages } from '../presentation/messages.js';

export const words = defineMessages(
  {
    heading: 'Daily report',
    intro: 'The figures of {day} (WIB) for {merchant}:',
    paid: 'Paid transactions',
    received: 'Received',
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
    paid: 'Transaksi lunas',
    received: 'Diterima',
    refunded: 'Dikembalikan (refund berhasil)',
    unmatched: 'Pembayaran tak cocok',
    unmatchedSum: 'Jumlah tak cocok',
    bySource: 'Per sumber pembayaran',
    note: 'Anda menerima e-mail ini karena laporan harian diaktifkan untuk merchant ini di konsol.',
    subject: 'Laporan harian {day} · {merchant}: {count} lunas, {sum}',
  },
);

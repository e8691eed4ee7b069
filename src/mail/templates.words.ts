// The words of the payer's invoice, receipt and refund notice (templates.ts), in both languages; what the checkout page
// says too (the total's label, the sandbox note, ...) is in presentation/shared-texts.ts.
import { defineMessages } from '../presentation/messages.js';

export const words = defineMessages(
  {
    sandboxTag: '[Sandbox]',
    invoiceSubject: 'Invoice',
    receiptSubject: 'Receipt',
    order: 'Order',
    // The invoice.
    invoiceHeading: 'Invoice from {merchant}',
    payExactly: 'Pay exactly {total}, unique code included, so that your payment is recognised.',
    qrAttached: 'The QRIS code is attached as an image.',
    scan: 'Scan the QRIS code (attached as an image) with any QRIS wallet or banking app.',
    openCheckout: 'Open the payment page',
    // The receipt.
    receiptHeading: 'Payment received',
    thanks: 'Thank you. {merchant} has received your payment.',
    amountPaid: 'Amount paid',
    paidAt: 'Paid at',
    paidWith: 'Paid with',
    paymentReference: 'Payment reference',
    late: 'This payment arrived after the invoice had expired. It is still recorded; contact {merchant} if you have questions about your order.',
    viewTransaction: 'View the transaction',
    // A refund's notice.
    refundSubject: 'Refund',
    refundHeading: 'Refund of {amount}',
    refundedByAcquirer:
      '{merchant} has refunded {amount} to you. It goes back to the account or wallet you paid with; your bank may take a few days to show it.',
    refundedRecorded:
      '{merchant} has recorded that it paid {amount} back to you itself (by transfer or in cash). This payment service moved no money: contact {merchant} if you have not received it.',
    amountRefunded: 'Amount refunded',
    refundReason: 'Reason',
    refundReference: 'Refund reference',
    refundedAt: 'Refunded at',
    refundCount: 'Refunds',
    refundedInTotal: 'Refunded in total',
    theRefunds: 'The refunds',
    moreRefunds: 'and {count} more ({amount})',
  },
  {
    sandboxTag: '[Sandbox]',
    invoiceSubject: 'Tagihan',
    receiptSubject: 'Bukti pembayaran',
    order: 'Nomor pesanan',
    invoiceHeading: 'Tagihan dari {merchant}',
    payExactly: 'Bayar tepat {total}, termasuk kode unik, agar pembayaran Anda dikenali.',
    qrAttached: 'Kode QRIS terlampir sebagai gambar.',
    scan: 'Pindai kode QRIS dengan aplikasi dompet digital atau bank apa pun yang mendukung QRIS.',
    openCheckout: 'Buka halaman pembayaran',
    receiptHeading: 'Pembayaran diterima',
    thanks: 'Terima kasih. {merchant} telah menerima pembayaran Anda.',
    amountPaid: 'Jumlah dibayar',
    paidAt: 'Waktu pembayaran',
    paidWith: 'Dibayar melalui',
    paymentReference: 'Referensi pembayaran',
    late: 'Pembayaran ini diterima setelah batas waktu tagihan. Pembayaran tetap tercatat; hubungi {merchant} bila ada pertanyaan tentang pesanan Anda.',
    viewTransaction: 'Lihat status transaksi',
    refundSubject: 'Dana dikembalikan',
    refundHeading: 'Pengembalian dana {amount}',
    refundedByAcquirer:
      '{merchant} telah mengembalikan {amount} kepada Anda. Dana kembali ke rekening atau dompet digital yang Anda pakai untuk membayar; bank Anda mungkin memerlukan beberapa hari untuk menampilkannya.',
    refundedRecorded:
      '{merchant} mencatat bahwa dana {amount} telah dikembalikan langsung kepada Anda (melalui transfer atau tunai). Layanan pembayaran ini tidak memindahkan dana: hubungi {merchant} bila Anda belum menerimanya.',
    amountRefunded: 'Jumlah dikembalikan',
    refundReason: 'Alasan',
    refundReference: 'Referensi pengembalian',
    refundedAt: 'Waktu pengembalian',
    refundCount: 'Jumlah pengembalian',
    refundedInTotal: 'Total dikembalikan',
    theRefunds: 'Rincian pengembalian',
    moreRefunds: 'dan {count} lainnya ({amount})',
  },
);

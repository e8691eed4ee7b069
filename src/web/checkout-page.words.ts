// The words of the payer's checkout page (checkout-page.ts) that are its own, in both languages; what the
// invoice mail says too (the total's label, the sandbox note, ...) is in presentation/shared-texts.ts.
import { defineMessages } from '../presentation/messages.js';

export const words = defineMessages(
  {
    title: 'Pay {total} – {merchant}',
    // A closed page is titled by its state ({status} is the status's name), so a tab or a saved page says what happened.
    titlePaid: '{status} {total} – {merchant}',
    titleClosed: '{status} – {merchant}',
    simulate: 'Pay (simulated)',
    payExactly: 'Pay exactly {total}, unique code included.',
    scan: 'Scan with any QRIS wallet or banking app.',
    paid: 'Payment received. Thank you!',
    expired: 'This QRIS code has expired.',
    cancelled: 'This transaction was cancelled.',
    proof: 'Proof of payment',
    paidTo: 'Paid to',
    amountPaid: 'Amount paid',
    paidAt: 'Paid at',
    saveQr: 'Save QR',
    fromGallery:
      'Paying from this phone? Save the QR, then in your wallet or banking app choose to scan from the gallery and pick it.',
  },
  {
    title: 'Bayar {total} – {merchant}',
    titlePaid: '{status} {total} – {merchant}',
    titleClosed: '{status} – {merchant}',
    simulate: 'Bayar (simulasi)',
    payExactly: 'Bayar tepat {total}, termasuk kode unik.',
    scan: 'Pindai dengan aplikasi dompet digital atau bank apa pun yang mendukung QRIS.',
    paid: 'Pembayaran diterima. Terima kasih!',
    expired: 'Kode QRIS sudah kedaluwarsa.',
    cancelled: 'Transaksi dibatalkan.',
    proof: 'Bukti pembayaran',
    paidTo: 'Dibayar kepada',
    amountPaid: 'Jumlah dibayar',
    paidAt: 'Waktu pembayaran',
    saveQr: 'Simpan QR',
    fromGallery:
      'Membayar dari ponsel ini? Simpan QR, lalu di aplikasi dompet digital atau bank Anda pilih pindai dari galeri dan ambil gambarnya.',
  },
);

// The texts of codes that more than one page shows: a transaction's status, why a payment did not match,
// and the errors a page turns into its notice; and the words the payer reads both on the checkout page and
// in the invoice and receipt mails. One set each, so a payment's reason reads the same on the payments page
// and on its transaction's page, and the invoice names what the checkout page names. A page's other words
// stay in its own `.words.ts`.
import type { ErrorCode } from '../domain/errors.js';
import { UNMATCHED_REASONS, type UnmatchedReason } from '../domain/matching.js';
import type { Mode, TransactionStatus } from '../domain/records.js';
import { defineMessages, translator, type Lang } from './messages.js';

const statuses = defineMessages<TransactionStatus | 'late'>(
  { pending: 'Pending', paid: 'Paid', expired: 'Expired', cancelled: 'Cancelled', late: 'paid late' },
  { pending: 'Menunggu', paid: 'Dibayar', expired: 'Kedaluwarsa', cancelled: 'Dibatalkan', late: 'dibayar terlambat' },
);

/** A transaction status's name: "Paid". */
export function statusText(status: TransactionStatus, lang: Lang): string {
  return translator(statuses, lang)(status);
}

const refundStatuses = defineMessages<'partial' | 'full'>(
  { partial: 'partly refunded', full: 'refunded' },
  { partial: 'dikembalikan sebagian', full: 'dikembalikan penuh' },
);

/** What a paid transaction's refunds gave back, beside its status: "refunded", "partly refunded". */
export function refundStatusText(refund: 'partial' | 'full', lang: Lang): string {
  return translator(refundStatuses, lang)(refund);
}

/** What a paid transaction is called when its payment came after it expired or was cancelled: "paid late". */
export function paidLateText(lang: Lang): string {
  return translator(statuses, lang)('late');
}

// A key's, a transaction's or a payment's mode. Indonesian says it in Indonesian, as the banks' own apps
// do: "produksi" (real money) and "uji" (the sandbox).
const modes = defineMessages<Mode>({ live: 'live', test: 'test' }, { live: 'produksi', test: 'uji' });

/** A mode's name, as every page that shows one prints it: "live" / "produksi". */
export function modeText(mode: Mode, lang: Lang): string {
  return translator(modes, lang)(mode);
}

const reasons = defineMessages<UnmatchedReason>(
  {
    no_matching_transaction: 'No open transaction had this total.',
    amount_mismatch: 'The transaction it named has another total.',
    transaction_already_paid: 'The transaction it was for is already paid.',
    paid_before_creation: 'It was paid before the transaction holding this total was created.',
    ambiguous_amount: 'More than one transaction held this total.',
    merchant_disabled: 'Its merchant is disabled: a report is kept, but pays nothing until an operator assigns it.',
  },
  {
    no_matching_transaction: 'Tidak ada transaksi terbuka dengan total ini.',
    amount_mismatch: 'Transaksi yang disebutkannya memiliki total lain.',
    transaction_already_paid: 'Transaksi yang dituju sudah lunas.',
    paid_before_creation: 'Dibayar sebelum transaksi dengan total ini dibuat.',
    ambiguous_amount: 'Lebih dari satu transaksi memegang total ini.',
    merchant_disabled:
      'Merchant-nya dinonaktifkan: laporannya disimpan, tetapi tidak membayar apa pun sampai operator menetapkannya.',
  },
);

/** Why a payment did not match, as a sentence. A reason this code does not know (an older row) is shown as stored. */
export function reasonText(reason: string, lang: Lang): string {
  return (UNMATCHED_REASONS as readonly string[]).includes(reason)
    ? translator(reasons, lang)(reason as UnmatchedReason)
    : reason;
}

/** The errors a page shows as its notice (each page picks those its actions expect); any other is the console's error page. */
const SHOWN_ERRORS = [
  'transaction_already_paid',
  'transaction_expired',
  'transaction_not_found',
  'payment_already_matched',
  'acquirer_unavailable',
  'acquirer_error',
  'reference_already_recorded',
  'transaction_not_kept_open',
] as const satisfies readonly ErrorCode[];
export type ShownError = (typeof SHOWN_ERRORS)[number];

// `{trxid}` is the transaction the viewer typed (the payments page's assign form); a page about one
// transaction needs none.
const errors = defineMessages<ShownError>(
  {
    transaction_already_paid: 'This transaction is already paid. Nothing was changed.',
    transaction_expired: 'This transaction has expired and can no longer be cancelled. Nothing was changed.',
    transaction_not_found: "There is no transaction {trxid} of this payment's merchant and mode.",
    payment_already_matched: 'This payment is already matched to a transaction; nothing was changed.',
    acquirer_unavailable: 'The acquirer could not be reached to void the code. Nothing was changed; try again later.',
    acquirer_error: 'The acquirer refused to void the code. Nothing was changed.',
    reference_already_recorded: 'A payment with this reference is already recorded. Nothing was changed.',
    transaction_not_kept_open:
      'Only a pending or expired transaction that received a part payment can be closed with what it received. Nothing was changed.',
  },
  {
    transaction_already_paid: 'Transaksi ini sudah dibayar. Tidak ada yang diubah.',
    transaction_expired: 'Transaksi ini sudah kedaluwarsa dan tidak dapat dibatalkan. Tidak ada yang diubah.',
    transaction_not_found: 'Tidak ada transaksi {trxid} milik merchant dan mode pembayaran ini.',
    payment_already_matched: 'Pembayaran ini sudah cocok dengan sebuah transaksi; tidak ada yang diubah.',
    acquirer_unavailable:
      'Acquirer tidak dapat dihubungi untuk membatalkan kode. Tidak ada yang diubah; coba lagi nanti.',
    acquirer_error: 'Acquirer menolak membatalkan kode. Tidak ada yang diubah.',
    reference_already_recorded: 'Pembayaran dengan referensi ini sudah tercatat. Tidak ada yang diubah.',
    transaction_not_kept_open:
      'Hanya transaksi menunggu atau kedaluwarsa yang sudah menerima pembayaran sebagian yang dapat ditutup dengan yang sudah diterima. Tidak ada yang diubah.',
  },
);

/** An error's notice text. */
export function errorText(code: ShownError, lang: Lang, params?: Record<string, string>): string {
  return translator(errors, lang)(code, params);
}

// The checkout page shows both languages at once, and the payer's mails have a section in each, so these
// are asked for by language, not through one page's translator.
const payer = defineMessages(
  {
    amountToPay: 'Amount to pay',
    uniqueCode: 'unique code',
    codeAdded: 'plus unique code',
    codeSubtracted: 'minus unique code discount',
    qrCodeFor: 'QRIS code for {total}',
    validUntil: 'Valid until',
    transactionId: 'Transaction ID',
    sandbox: 'Sandbox mode: no real money.',
  },
  {
    amountToPay: 'Total yang harus dibayar',
    uniqueCode: 'kode unik',
    codeAdded: 'ditambahkan kode unik',
    codeSubtracted: 'dikurangi kode unik',
    qrCodeFor: 'Kode QRIS untuk {total}',
    validUntil: 'Berlaku hingga',
    transactionId: 'ID transaksi',
    sandbox: 'Mode sandbox: tidak ada uang sungguhan.',
  },
);
export type PayerWord = keyof typeof payer.en;

/** What the checkout page and the payer's mails both say: "Amount to pay". */
export function payerText(key: PayerWord, lang: Lang, params?: Record<string, string>): string {
  return translator(payer, lang)(key, params);
}

// A merchant without an enabled live payment source: what the keys, transaction and POS pages say.
const noLiveSource = defineMessages(
  {
    sentence:
      'No payment source will mark a live payment of {merchant} paid: it has no enabled live payment source, so a live sale or a live key’s transaction waits until it expires.',
    add: 'Add a payment source',
  },
  {
    sentence:
      'Tidak ada sumber pembayaran yang akan menandai pembayaran produksi {merchant} lunas: merchant ini belum punya sumber pembayaran produksi yang aktif, jadi penjualan produksi atau transaksi kunci produksi menunggu sampai kedaluwarsa.',
    add: 'Tambah sumber pembayaran',
  },
);

/** "No payment source will mark a live payment of {merchant} paid…" and the link's words. */
export function noLiveSourceText(
  key: keyof typeof noLiveSource.en,
  lang: Lang,
  params?: Record<string, string>,
): string {
  return translator(noLiveSource, lang)(key, params);
}

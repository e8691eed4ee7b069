import type { IgnoredReason } from './reader.js';

// What no reader counts, whatever amounts it names: offers, the merchant's own purchases and transfers out,
// withdrawals. Checked before any reader, so a promotion worded like a payment ("Kamu berhasil menerima
// cashback Rp10.000") never pays.
const RULES: ReadonlyArray<readonly [RegExp, IgnoredReason]> = [
  [/\b(cashback|promo\w*|diskon|voucher|hadiah|gratis|potongan|kupon|undian)\b/i, 'promotion'],
  [/\b(penarikan|tarik (saldo|tunai|dana)|withdraw\w*|pencairan)\b/i, 'withdrawal'],
  // "Pembayaran Rp20.000 ke Toko X berhasil", "Transfer ke ... berhasil", "Kamu berhasil membayar ...".
  [/\b(pembayaran|transfer|kirim (uang|saldo))\b[^\n]*\bke\b[^\n]*\bberhasil\b/i, 'outgoing'],
  [/\bberhasil (membayar|mengirim|transfer|top ?up|bayar)\b/i, 'outgoing'],
];

export function notAPayment(text: string): IgnoredReason | null {
  for (const [pattern, reason] of RULES) if (pattern.test(text)) return reason;
  return null;
}

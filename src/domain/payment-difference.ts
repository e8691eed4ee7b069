import { formatRupiah } from './money.js';

/**
 * How a payment's amount differs from a transaction's total: `underpaid` when it is less, `overpaid`
 * when it is more, both 0 when it fits. Whole rupiah, never negative.
 */
export interface PaymentDifference {
  underpaid: number;
  overpaid: number;
}

export function paymentDifference(paid: number, total: number): PaymentDifference {
  return { underpaid: Math.max(0, total - paid), overpaid: Math.max(0, paid - total) };
}

/** "payment Rp25.000 is Rp123 less than the total Rp25.123": the refusal of an assign not accepted. */
export function differenceMessage(paid: number, total: number): string {
  const { underpaid, overpaid } = paymentDifference(paid, total);
  const side = underpaid > 0 ? `${formatRupiah(underpaid)} less` : `${formatRupiah(overpaid)} more`;
  return `payment ${formatRupiah(paid)} is ${side} than the total ${formatRupiah(total)}; accept the difference to assign it`;
}

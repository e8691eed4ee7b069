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

/**
 * What a transaction holds once one more payment is added to what it received before (a part payment
 * kept open): amount_paid is the sum, and underpaid / overpaid compare that sum with the total. The one
 * rule for a transaction's three amounts, whether it is then paid or kept open: a pending transaction
 * kept open after a part payment is underpaid by the rest still due.
 */
export function amountsAfter(
  before: number,
  payment: number,
  total: number,
): PaymentDifference & { amountPaid: number } {
  const amountPaid = before + payment;
  return { amountPaid, ...paymentDifference(amountPaid, total) };
}

/**
 * How an assign of `payment` to a transaction that received `before` of its `total` ends, unless the
 * person chose otherwise: 'exact' pays it (the sum is the total), 'short' and 'over' need a person's
 * decision (accept the difference, or for 'short' keep it open for the rest).
 */
export function assignFit(before: number, payment: number, total: number): 'exact' | 'short' | 'over' {
  const sum = before + payment;
  return sum === total ? 'exact' : sum < total ? 'short' : 'over';
}

/**
 * "payment Rp25.000 is Rp123 less than the total Rp25.123": the refusal of an assign not accepted. When
 * the transaction already received a part (`before` > 0) the payment is compared with what is still due.
 */
export function differenceMessage(paid: number, total: number, before = 0): string {
  const due = total - before;
  const { underpaid, overpaid } = paymentDifference(paid, due);
  const side = underpaid > 0 ? `${formatRupiah(underpaid)} less` : `${formatRupiah(overpaid)} more`;
  const than =
    before > 0
      ? `the ${formatRupiah(due)} still due of the total ${formatRupiah(total)}`
      : `the total ${formatRupiah(total)}`;
  const keep = underpaid > 0 ? ' or keep the transaction open for the rest' : '';
  return `payment ${formatRupiah(paid)} is ${side} than ${than}; accept the difference${keep} to assign it`;
}

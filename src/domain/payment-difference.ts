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

import { AppError } from '../../domain/errors.js';
import type { RefundsTable } from '../../storage/schema.js';

/** The error a failed refund answers (again, on a retry with its Idempotency-Key). */
export function failureOf(refund: RefundsTable): AppError {
  const code = refund.error_code === 'refund_exceeds_remaining' ? 'refund_exceeds_remaining' : 'refund_refused';
  return new AppError(code, `refund ${refund.id} failed: ${refund.error_message ?? code}`, {
    param: code === 'refund_exceeds_remaining' ? 'amount' : undefined,
  });
}

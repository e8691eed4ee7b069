import { AppError } from './errors.js';
import { isoTime, isoTimeOrNull } from './iso-time.js';
import type { RefundStatus, RefundsTable, TransactionsTable } from './records.js';

/** A refund as the API, the events and the console show it. */
export interface RefundView {
  id: string;
  amount: number;
  status: RefundStatus;
  reason: string;
  created_at: string;
  completed_at: string | null;
  /** The acquirer's reference of the refund, or the merchant's own reference of a recorded one. */
  reference: string | null;
  /** True: recorded as paid back outside the gateway (a static-QRIS code); the gateway moved no money. */
  recorded: boolean;
  /** Why it failed (refund_refused, refund_exceeds_remaining); null otherwise. */
  error_code: string | null;
}

export function presentRefund(row: RefundsTable): RefundView {
  return {
    id: row.id,
    amount: row.amount,
    status: row.status,
    reason: row.reason,
    created_at: isoTime(row.created_at),
    completed_at: isoTimeOrNull(row.completed_at),
    reference: row.reference,
    recorded: row.recorded === 1,
    error_code: row.error_code,
  };
}

/** What a paid transaction can still give back: received, less its succeeded and pending refunds. */
export function refundableRemainder(tx: Pick<TransactionsTable, 'amount_paid' | 'refunded_amount' | 'refund_held'>): number {
  return Math.max(0, (tx.amount_paid ?? 0) - (tx.refunded_amount ?? 0) - (tx.refund_held ?? 0));
}

export const REFUND_REASON_MAX = 256;
export const REFUND_REFERENCE_MAX = 128;

// Reasons and references are shown in the console and the payer's mail: no control characters.
const CONTROL = /[\u0000-\u001f\u007f]/;

/** The reason a refund is asked for: required, trimmed, 1 to 256 characters. */
export function parseRefundReason(raw: unknown): string {
  const text = typeof raw === 'string' ? raw.trim() : '';
  if (typeof raw !== 'string' || text.length === 0 || text.length > REFUND_REASON_MAX || CONTROL.test(text)) {
    throw new AppError('invalid_parameter', `reason is required: 1 to ${REFUND_REASON_MAX} characters without control characters`, { param: 'reason' });
  }
  return text;
}

/** The merchant's own reference of a recorded refund (a transfer's number): optional, trimmed, at most 128. */
export function parseRefundReference(raw: unknown): string | null {
  if (raw === undefined || raw === null) return null;
  const text = typeof raw === 'string' ? raw.trim() : '';
  if (typeof raw !== 'string' || text.length > REFUND_REFERENCE_MAX || CONTROL.test(text)) {
    throw new AppError('invalid_parameter', `reference must be at most ${REFUND_REFERENCE_MAX} characters without control characters`, {
      param: 'reference',
    });
  }
  return text === '' ? null : text;
}

/** The refund's amount: whole rupiah, positive; absent means everything that remains. */
export function parseRefundAmount(raw: unknown): number | null {
  if (raw === undefined || raw === null || raw === '') return null;
  const text = typeof raw === 'number' && Number.isSafeInteger(raw) ? String(raw) : raw;
  if (typeof text !== 'string' || !/^[0-9]{1,15}$/.test(text) || Number(text) < 1 || !Number.isSafeInteger(Number(text))) {
    throw new AppError('invalid_parameter', 'amount must be a positive whole number of rupiah', { param: 'amount' });
  }
  return Number(text);
}

// An acquirer that has not answered finally is asked again: 30 s after the first ask, doubling, at most
// hourly. It is never given up on automatically: money may have moved at the acquirer, so a refund stays
// pending (and its amount held) until the acquirer answers finally, however long that takes.
const FIRST_RETRY_MS = 30_000;
const MAX_RETRY_MS = 3_600_000;

/** When a pending refund is asked again after `attempts` asks without a final answer. */
export function nextRefundAttemptAt(attempts: number, now: number): number {
  const delay = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.min(20, Math.max(0, attempts - 1)));
  return now + delay;
}

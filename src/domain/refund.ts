import { AppError } from './errors.js';
import { isoTime, isoTimeOrNull } from './iso-time.js';
import { LINK_OR_ADDRESS, readsAsLinkOrAddress } from './link-text.js';
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
export function refundableRemainder(
  tx: Pick<TransactionsTable, 'amount_paid' | 'refunded_amount' | 'refund_held'>,
): number {
  return Math.max(0, (tx.amount_paid ?? 0) - (tx.refunded_amount ?? 0) - (tx.refund_held ?? 0));
}

/**
 * Where a paid transaction stands after its refunds, as its receipt says it: only succeeded refunds count
 * as given back; a refund still pending at an acquirer is shown as in progress, its amount still paid.
 */
export interface RefundStanding {
  /** paid: nothing given back; partly_refunded: some of it; refunded: all that was received. */
  standing: 'paid' | 'partly_refunded' | 'refunded';
  /** What it received (amount_paid). */
  paid: number;
  /** The sum of its succeeded refunds. */
  refunded: number;
  /** The sum of its refunds still pending at an acquirer: not refunded yet, and not counted as such. */
  inProgress: number;
  /** What remains paid: received less succeeded refunds. */
  remaining: number;
}

export function refundStanding(
  tx: Pick<TransactionsTable, 'amount_paid' | 'refunded_amount' | 'refund_held'>,
): RefundStanding {
  const paid = tx.amount_paid ?? 0;
  const refunded = Math.min(paid, tx.refunded_amount ?? 0);
  return {
    standing: STANDING[transactionRefundStatus(tx)],
    paid,
    refunded,
    inProgress: tx.refund_held ?? 0,
    remaining: paid - refunded,
  };
}

/**
 * How much of what a transaction received was given back, at a glance (the API's `refund_status`):
 * none, partial, or full (its succeeded refunds reach what it received). Pending refunds do not count,
 * as in refunded_amount. Beside the status, which stays one of the contract's four. The one derivation:
 * a receipt's standing (refundStanding) is this, in the receipt's words.
 */
export type TransactionRefundStatus = 'none' | 'partial' | 'full';

export function transactionRefundStatus(
  tx: Pick<TransactionsTable, 'amount_paid' | 'refunded_amount'>,
): TransactionRefundStatus {
  const refunded = tx.refunded_amount ?? 0;
  if (refunded <= 0) return 'none';
  return refunded >= (tx.amount_paid ?? 0) ? 'full' : 'partial';
}

const STANDING: Record<TransactionRefundStatus, RefundStanding['standing']> = {
  none: 'paid',
  partial: 'partly_refunded',
  full: 'refunded',
};

export const REFUND_REASON_MAX = 256;
export const REFUND_REFERENCE_MAX = 128;

// Reasons and references are shown in the console and in the payer's refund notice, which the gateway
// mails from the operator's address: no control characters, and no link or address (link-text.ts, the
// rule of merchants' names), so a refund cannot carry a phishing link to a payer (issue 35, finding 2).
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Refuses a refund's text that reads as a link or an address: AppError invalid_parameter naming `param`.
 * Every refund's reason and reference goes through it, a double payment's included.
 */
export function refuseLinkInRefundText(text: string, param: 'reason' | 'reference'): void {
  if (readsAsLinkOrAddress(text)) {
    throw new AppError(
      'invalid_parameter',
      `${param} must not contain ${LINK_OR_ADDRESS}: the payer reads it in the gateway's mail. After a full stop, write a space ("Habis. Maaf", not "Habis.Maaf")`,
      { param },
    );
  }
}

/** The reason a refund is asked for: required, trimmed, 1 to 256 characters, no control character, link or address. */
export function parseRefundReason(raw: unknown): string {
  const text = typeof raw === 'string' ? raw.trim() : '';
  if (typeof raw !== 'string' || text.length === 0 || text.length > REFUND_REASON_MAX || CONTROL.test(text)) {
    throw new AppError(
      'invalid_parameter',
      `reason is required: 1 to ${REFUND_REASON_MAX} characters without control characters`,
      { param: 'reason' },
    );
  }
  refuseLinkInRefundText(text, 'reason');
  return text;
}

/** The merchant's own reference of a recorded refund (a transfer's number): optional, trimmed, at most 128, no link or address. */
export function parseRefundReference(raw: unknown): string | null {
  if (raw === undefined || raw === null) return null;
  const text = typeof raw === 'string' ? raw.trim() : '';
  if (typeof raw !== 'string' || text.length > REFUND_REFERENCE_MAX || CONTROL.test(text)) {
    throw new AppError(
      'invalid_parameter',
      `reference must be at most ${REFUND_REFERENCE_MAX} characters without control characters`,
      {
        param: 'reference',
      },
    );
  }
  refuseLinkInRefundText(text, 'reference');
  return text === '' ? null : text;
}

/** The refund's amount: whole rupiah, positive; absent means everything that remains. */
export function parseRefundAmount(raw: unknown): number | null {
  if (raw === undefined || raw === null || raw === '') return null;
  const text = typeof raw === 'number' && Number.isSafeInteger(raw) ? String(raw) : raw;
  if (
    typeof text !== 'string' ||
    !/^[0-9]{1,15}$/.test(text) ||
    Number(text) < 1 ||
    !Number.isSafeInteger(Number(text))
  ) {
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

import { isSourceId, newPaymentId } from '../../domain/ids.js';
import { decideMatch, type UnmatchedReason } from '../../domain/matching.js';
import { isCorroboration, presentPayment, REPORTED_BY_ANOTHER_SOURCE } from '../../domain/payment.js';
import type { Tx } from '../../storage/executor.js';
import {
  bindCorroboration,
  insertPaymentUnlessDuplicate,
  lockTransactionForReports,
  paymentBySourceId,
  paymentCandidatesByAmount,
  paymentCandidatesByName,
  reportsOfPaidTransaction,
  setPaymentReason,
} from '../../storage/queries/payments.js';
import type { Mode, PaymentsTable, TransactionsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';
import { enqueueEvent } from '../webhooks/enqueue-event.js';
import { settlePayment } from './settle-payment.js';
import { readTransaction } from '../../storage/queries/transactions.js';
import { merchantDisabledAt } from '../../storage/queries/merchants.js';

export interface ReportedPayment {
  merchantId: string;
  mode: Mode;
  /** Which source saw it (simulator, manual, a source id, ...): with sourcePaymentId, the payment's identity. */
  source: string;
  sourcePaymentId: string;
  amount: number;
  paidAt: number;
  /** A transaction the report names directly (simulator, an operator's confirmation). */
  trxid?: string | null;
  /** The source's reference; matched against our trxid and the transaction's acquirer reference. */
  reference?: string | null;
  payerName?: string | null;
  issuer?: string | null;
  raw?: unknown;
  /** An operator's confirmation of the rest of a transaction kept open (confirm-payment.ts); see PaymentFacts. */
  confirmsRest?: boolean;
}

export type PaymentOutcome = 'matched' | 'unmatched' | 'duplicate';

export interface RecordPaymentResult {
  outcome: PaymentOutcome;
  payment: PaymentsTable;
  /** The paid transaction; for an unmatched payment the one it was compared with, if any. */
  transaction: TransactionsTable | null;
  /**
   * Why an unmatched payment matched nothing; `reported_by_another_source` for a report another source's
   * report of the same payment came before (a duplicate across sources, see corroborated); null otherwise.
   */
  reason: UnmatchedReason | typeof REPORTED_BY_ANOTHER_SOURCE | null;
}

/**
 * Stores a reported payment and, in the same database transaction, binds it to the transaction it pays.
 * The unique (source, source_payment_id) key makes a repeated report a no-op; the conditional update
 * on the transaction makes "paid at most once" hold even when two reports race.
 */
export async function recordPayment(deps: Deps, report: ReportedPayment): Promise<RecordPaymentResult> {
  // Group-committed on SQLite: reports arriving together share one fsync (see unit-of-work).
  return deps.db.runInTransaction((trx) => recordPaymentIn(trx, deps, report));
}

/** recordPayment inside the caller's database transaction (an operator action adds its audit row). */
export async function recordPaymentIn(trx: Tx, deps: Deps, report: ReportedPayment): Promise<RecordPaymentResult> {
  const now = deps.now();
  const payment: PaymentsTable = {
    id: newPaymentId(),
    merchant_id: report.merchantId,
    mode: report.mode,
    source: report.source,
    source_payment_id: report.sourcePaymentId,
    amount: report.amount,
    paid_at: report.paidAt,
    received_at: now,
    reference: report.reference ?? null,
    payer_name: report.payerName ?? null,
    issuer: report.issuer ?? null,
    status: 'unmatched',
    reason: null,
    transaction_id: null,
    compared_transaction_id: null,
    raw: report.raw === undefined ? null : JSON.stringify(report.raw),
  };
  // Stored first: whatever happens next, the report is never lost, and a repeat stops here.
  const stored = await insertPaymentUnlessDuplicate(trx, payment);
  if (!stored) return duplicate(trx, report);
  // A disabled merchant's sources may still report (a feed already polling, a request in flight, an
  // operator's confirmation): stored as above, but it pays nothing.
  if ((await merchantDisabledAt(trx, report.merchantId)) != null)
    return unmatched(trx, deps, payment, 'merchant_disabled', null, now);

  const named = await namedCandidates(trx, report);
  // Every row namedCandidates returns is one decideMatch picks as named, and a named transaction decides
  // the match without looking at amounts: the amount lookup (which would read the same row again for a
  // report that names its transaction and pays its total) is only needed when nothing is named.
  const byAmount = named.length > 0 ? [] : await amountCandidates(trx, report, now);
  const decision = decideMatch({
    payment: {
      amount: report.amount,
      paidAt: report.paidAt,
      trxid: report.trxid ?? null,
      reference: report.reference ?? null,
      confirmsRest: report.confirmsRest === true,
    },
    named,
    byAmount,
    now,
    clockSkewMs: deps.config.matchClockSkewSeconds * 1000,
  });
  if (decision.outcome === 'matched') {
    const settled = await settlePayment(trx, deps, payment, decision.transaction, decision.late, now);
    if (settled) return { outcome: 'matched', ...settled, reason: null };
    // Another payment won the race for this transaction since the candidates were read: it is paid now
    // (this one is a double payment), or a person kept it open after a part payment (it is owed less).
    const current = (await readTransaction(trx, decision.transaction.id)) ?? decision.transaction;
    if (current.status === 'paid')
      return (
        (await corroborated(trx, deps, payment, current)) ??
        unmatched(trx, deps, payment, 'transaction_already_paid', current, now)
      );
    return unmatched(trx, deps, payment, 'amount_mismatch', current, now);
  }
  if (decision.reason === 'transaction_already_paid' && decision.transaction !== null) {
    const corroboration = await corroborated(trx, deps, payment, decision.transaction);
    if (corroboration) return corroboration;
  }
  return unmatched(trx, deps, payment, decision.reason, decision.transaction, now);
}

/**
 * A report of a paid transaction's amount from a source other than the one(s) that reported it: the same
 * payment seen twice (a phone's notification and the bank's mutation), not a double payment to refund,
 * when isCorroboration says so over the transaction's reports from payment sources (not the simulator or
 * `manual`) dated within CROSS_SOURCE_WINDOW_SECONDS of this one. It is bound to the transaction with reason `reported_by_another_source` (matched, so neither
 * listed for review nor refunded; the transaction's amount paid does not change) and answered as a
 * duplicate, without a `payment.unmatched` event. The transaction's row is locked first on PostgreSQL, so
 * two reports at once are counted one after the other; null when it is a payment of its own.
 */
async function corroborated(
  trx: Tx,
  deps: Deps,
  payment: PaymentsTable,
  tx: TransactionsTable,
): Promise<RecordPaymentResult | null> {
  const windowMs = deps.config.crossSourceWindowSeconds * 1000;
  // Only the merchant's payment sources observe payments: the sandbox's simulator and an operator's
  // confirmation (`manual`) are statements of a payment, never a second view of one.
  if (windowMs === 0 || !isSourceId(payment.source)) return null;
  await lockTransactionForReports(trx, deps.db.dialect, tx.id);
  const others = await reportsOfPaidTransaction(trx, tx, {
    amount: payment.amount,
    from: payment.paid_at - windowMs,
    to: payment.paid_at + windowMs,
    exceptId: payment.id,
  });
  if (
    !isCorroboration(
      payment.source,
      others.filter((other) => isSourceId(other.source)),
    )
  )
    return null;
  await bindCorroboration(trx, payment.id, tx.id, REPORTED_BY_ANOTHER_SOURCE);
  const bound: PaymentsTable = {
    ...payment,
    status: 'matched',
    reason: REPORTED_BY_ANOTHER_SOURCE,
    transaction_id: tx.id,
    compared_transaction_id: null,
  };
  return { outcome: 'duplicate', payment: bound, transaction: tx, reason: REPORTED_BY_ANOTHER_SOURCE };
}

/** An unmatched payment stays listed for an operator, and the merchant hears of it. */
async function unmatched(
  trx: Tx,
  deps: Deps,
  payment: PaymentsTable,
  reason: UnmatchedReason,
  compared: TransactionsTable | null,
  now: number,
): Promise<RecordPaymentResult> {
  payment.reason = reason;
  // Which transaction it was refused for, so an operator can open it beside the reason.
  payment.compared_transaction_id = compared?.id ?? null;
  await setPaymentReason(trx, payment.id, reason, payment.compared_transaction_id);
  await enqueueEvent(trx, deps.state.statusBus, {
    merchantId: payment.merchant_id,
    mode: payment.mode,
    type: 'payment.unmatched',
    paymentId: payment.id,
    data: presentPayment(payment),
    now,
  });
  return { outcome: 'unmatched', payment, transaction: compared, reason };
}

/** Exactly the transactions decideMatch's pickNamed would take as named (recordPaymentIn relies on it). */
async function namedCandidates(trx: Tx, report: ReportedPayment): Promise<TransactionsTable[]> {
  const trxid = report.trxid || null;
  const reference = report.reference || null;
  if (trxid === null && reference === null) return [];
  return paymentCandidatesByName(trx, { merchantId: report.merchantId, mode: report.mode, trxid, reference });
}

/**
 * The transaction holding the payment's total as its unique total right now: an open one, or one
 * expired within the reservation grace. A reservation past its time is free for a new transaction to
 * take, so it no longer names anyone (whether or not the sweeper has deleted it yet).
 */
async function amountCandidates(trx: Tx, report: ReportedPayment, now: number): Promise<TransactionsTable[]> {
  return paymentCandidatesByAmount(trx, {
    merchantId: report.merchantId,
    mode: report.mode,
    amount: report.amount,
    now,
  });
}

async function duplicate(trx: Tx, report: ReportedPayment): Promise<RecordPaymentResult> {
  const payment = await paymentBySourceId(trx, report.source, report.sourcePaymentId);
  const transaction =
    payment.transaction_id === null ? null : ((await readTransaction(trx, payment.transaction_id)) ?? null);
  return {
    outcome: 'duplicate',
    payment,
    transaction,
    reason: (payment.reason as RecordPaymentResult['reason']) ?? null,
  };
}

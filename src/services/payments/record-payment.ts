import { newPaymentId } from '../../domain/ids.js';
import { decideMatch, type UnmatchedReason } from '../../domain/matching.js';
import { presentPayment } from '../../domain/payment.js';
import type { Tx } from '../../storage/executor.js';
import {
  insertPaymentUnlessDuplicate,
  paymentBySourceId,
  paymentCandidatesByAmount,
  paymentCandidatesByName,
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
}

export type PaymentOutcome = 'matched' | 'unmatched' | 'duplicate';

export interface RecordPaymentResult {
  outcome: PaymentOutcome;
  payment: PaymentsTable;
  /** The paid transaction; for an unmatched payment the one it was compared with, if any. */
  transaction: TransactionsTable | null;
  /** Why an unmatched payment matched nothing (null otherwise). */
  reason: UnmatchedReason | null;
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
  if ((await merchantDisabledAt(trx, report.merchantId)) != null) return unmatched(trx, deps, payment, 'merchant_disabled', null, now);

  const named = await namedCandidates(trx, report);
  // Every row namedCandidates returns is one decideMatch picks as named, and a named transaction decides
  // the match without looking at amounts: the amount lookup (which would read the same row again for a
  // report that names its transaction and pays its total) is only needed when nothing is named.
  const byAmount = named.length > 0 ? [] : await amountCandidates(trx, report, now);
  const decision = decideMatch({
    payment: { amount: report.amount, paidAt: report.paidAt, trxid: report.trxid ?? null, reference: report.reference ?? null },
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
    return unmatched(trx, deps, payment, current.status === 'paid' ? 'transaction_already_paid' : 'amount_mismatch', current, now);
  }
  return unmatched(trx, deps, payment, decision.reason, decision.transaction, now);
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
  return paymentCandidatesByAmount(trx, { merchantId: report.merchantId, mode: report.mode, amount: report.amount, now });
}

async function duplicate(trx: Tx, report: ReportedPayment): Promise<RecordPaymentResult> {
  const payment = await paymentBySourceId(trx, report.source, report.sourcePaymentId);
  const transaction = payment.transaction_id === null ? null : ((await readTransaction(trx, payment.transaction_id)) ?? null);
  return { outcome: 'duplicate', payment, transaction, reason: (payment.reason as UnmatchedReason | null) ?? null };
}
